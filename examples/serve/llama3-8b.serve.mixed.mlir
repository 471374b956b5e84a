// Generated for examples/serve (README.md): poot-trace --small --model=llama3-8b --cache=paged --pool-slots=160 --lora=2 --lora-rank=4 --phase=decode --tokens=4 --batch=4
module {
  func.func @llama3_8b_decode_paged(%arg0: tensor<4x4x128xf32> {poot.name = "x"}, %arg1: tensor<4xi32> {poot.name = "pos", poot.range = array<i64: 0, 61>, poot.slot = "pos"}, %arg2: tensor<16xi32> {poot.name = "write_map", poot.range = array<i64: -1, 160>, poot.slot = "write_map"}, %arg3: tensor<4x64xi32> {poot.name = "slot_map", poot.range = array<i64: 0, 160>, poot.slot = "slot_map"}, %arg4: tensor<4xi32> {poot.name = "adapter", poot.range = array<i64: 0, 3>, poot.slot = "adapter"}, %arg5: tensor<128xf32> {poot.name = "l0.attn_norm"}, %arg6: tensor<128x128xf32> {poot.name = "l0.wq"}, %arg7: tensor<2x128x4xf32> {poot.name = "l0.wq.lora_a"}, %arg8: tensor<2x4x128xf32> {poot.name = "l0.wq.lora_b"}, %arg9: tensor<128x64xf32> {poot.name = "l0.wk"}, %arg10: tensor<128x64xf32> {poot.name = "l0.wv"}, %arg11: tensor<2x128x4xf32> {poot.name = "l0.wv.lora_a"}, %arg12: tensor<2x4x64xf32> {poot.name = "l0.wv.lora_b"}, %arg13: tensor<160x2x32xf32> {poot.name = "l0.k_pool", poot.state = "l0.k_pool"}, %arg14: tensor<160x2x32xf32> {poot.name = "l0.v_pool", poot.state = "l0.v_pool"}, %arg15: tensor<128x128xf32> {poot.name = "l0.wo"}, %arg16: tensor<128xf32> {poot.name = "l1.attn_norm"}, %arg17: tensor<128x128xf32> {poot.name = "l1.wq"}, %arg18: tensor<2x128x4xf32> {poot.name = "l1.wq.lora_a"}, %arg19: tensor<2x4x128xf32> {poot.name = "l1.wq.lora_b"}, %arg20: tensor<128x64xf32> {poot.name = "l1.wk"}, %arg21: tensor<128x64xf32> {poot.name = "l1.wv"}, %arg22: tensor<2x128x4xf32> {poot.name = "l1.wv.lora_a"}, %arg23: tensor<2x4x64xf32> {poot.name = "l1.wv.lora_b"}, %arg24: tensor<160x2x32xf32> {poot.name = "l1.k_pool", poot.state = "l1.k_pool"}, %arg25: tensor<160x2x32xf32> {poot.name = "l1.v_pool", poot.state = "l1.v_pool"}, %arg26: tensor<128x128xf32> {poot.name = "l1.wo"}) -> (tensor<4x4x128xf32> {poot.name = "y"}, tensor<160x2x32xf32> {poot.name = "l0.k_pool", poot.state = "l0.k_pool"}, tensor<160x2x32xf32> {poot.name = "l0.v_pool", poot.state = "l0.v_pool"}, tensor<160x2x32xf32> {poot.name = "l1.k_pool", poot.state = "l1.k_pool"}, tensor<160x2x32xf32> {poot.name = "l1.v_pool", poot.state = "l1.v_pool"}) {
    %0 = poot.constant dense<0> : tensor<i32>
    %1 = poot.broadcast %0 {shape = array<i64: 4>} : tensor<i32>
    %2 = poot.constant dense<1> : tensor<i32>
    %3 = poot.broadcast %2 {shape = array<i64: 4>} : tensor<i32>
    %4 = poot.sub %arg4, %3 : tensor<4xi32>, tensor<4xi32>
    %5 = poot.max %4, %1 : tensor<4xi32>, tensor<4xi32>
    %6 = poot.constant dense<1> : tensor<i32>
    %7 = poot.broadcast %6 {shape = array<i64: 4>} : tensor<i32>
    %8 = poot.min %arg4, %7 : tensor<4xi32>, tensor<4xi32>
    %9 = poot.convert %8 : tensor<4xi32> -> tensor<4xf32>
    %10 = poot.reshape %9 : tensor<4xf32> -> tensor<4x1x1xf32>
    %11 = poot.reshape %arg1 : tensor<4xi32> -> tensor<4x1x1x1xi32>
    %12 = poot.iota {dim = 2 : i64} : tensor<1x1x4x1xi32>
    %13 = poot.add %11, %12 : tensor<4x1x1x1xi32>, tensor<1x1x4x1xi32>
    %14 = poot.convert %13 : tensor<4x1x4x1xi32> -> tensor<4x1x4x1xf32>
    %15 = poot.constant dense<[[[[1.000000e+00, 0.440366596, 0.193922743, 8.539710e-02, 0.0376060307, 0.0165604409, 0.00729266461, 0.00321144611, 0.00141421356, 6.22772437E-4, 2.74248188E-4, 1.20769735E-4, 5.31829573E-5, 2.342000e-05, 1.03133852E-5, 4.54167048E-6]]]]> : tensor<1x1x1x16xf32>
    %16 = poot.mul %14, %15 : tensor<4x1x4x1xf32>, tensor<1x1x1x16xf32>
    %17 = poot.concat %16, %16 {axis = 3 : i64} : tensor<4x1x4x16xf32>, tensor<4x1x4x16xf32>
    %18 = poot.cos %17 : tensor<4x1x4x32xf32>
    %19 = poot.sin %17 : tensor<4x1x4x32xf32>
    %20 = poot.mul %arg0, %arg0 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    %21 = poot.reduce_sum %20 {axis = 2 : i64, keepdim} : tensor<4x4x128xf32>
    %22 = poot.constant dense<7.812500e-03> : tensor<f32>
    %23 = poot.broadcast %22 {shape = array<i64: 4, 4, 1>} : tensor<f32>
    %24 = poot.mul %21, %23 : tensor<4x4x1xf32>, tensor<4x4x1xf32>
    %25 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %26 = poot.broadcast %25 {shape = array<i64: 4, 4, 1>} : tensor<f32>
    %27 = poot.add %24, %26 : tensor<4x4x1xf32>, tensor<4x4x1xf32>
    %28 = poot.rsqrt %27 : tensor<4x4x1xf32>
    %29 = poot.mul %arg0, %28 : tensor<4x4x128xf32>, tensor<4x4x1xf32>
    %30 = poot.mul %29, %arg5 : tensor<4x4x128xf32>, tensor<128xf32>
    %31 = poot.matmul %30, %arg6 : tensor<4x4x128xf32>, tensor<128x128xf32>
    %32 = poot.gather %arg7[%5] {axis = 0 : i64} : tensor<2x128x4xf32>, tensor<4xi32>
    %33 = poot.gather %arg8[%5] {axis = 0 : i64} : tensor<2x4x128xf32>, tensor<4xi32>
    %34 = poot.matmul %30, %32 : tensor<4x4x128xf32>, tensor<4x128x4xf32>
    %35 = poot.matmul %34, %33 : tensor<4x4x4xf32>, tensor<4x4x128xf32>
    %36 = poot.broadcast %10 {shape = array<i64: 4, 4, 128>} : tensor<4x1x1xf32>
    %37 = poot.mul %35, %36 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    %38 = poot.add %31, %37 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    %39 = poot.reshape %38 : tensor<4x4x128xf32> -> tensor<4x4x4x32xf32>
    %40 = poot.transpose %39 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x4x32xf32>
    %41 = poot.matmul %30, %arg9 : tensor<4x4x128xf32>, tensor<128x64xf32>
    %42 = poot.reshape %41 : tensor<4x4x64xf32> -> tensor<4x4x2x32xf32>
    %43 = poot.transpose %42 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x2x32xf32>
    %44 = poot.matmul %30, %arg10 : tensor<4x4x128xf32>, tensor<128x64xf32>
    %45 = poot.gather %arg11[%5] {axis = 0 : i64} : tensor<2x128x4xf32>, tensor<4xi32>
    %46 = poot.gather %arg12[%5] {axis = 0 : i64} : tensor<2x4x64xf32>, tensor<4xi32>
    %47 = poot.matmul %30, %45 : tensor<4x4x128xf32>, tensor<4x128x4xf32>
    %48 = poot.matmul %47, %46 : tensor<4x4x4xf32>, tensor<4x4x64xf32>
    %49 = poot.broadcast %10 {shape = array<i64: 4, 4, 64>} : tensor<4x1x1xf32>
    %50 = poot.mul %48, %49 : tensor<4x4x64xf32>, tensor<4x4x64xf32>
    %51 = poot.add %44, %50 : tensor<4x4x64xf32>, tensor<4x4x64xf32>
    %52 = poot.reshape %51 : tensor<4x4x64xf32> -> tensor<4x4x2x32xf32>
    %53 = poot.transpose %52 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x2x32xf32>
    %54 = poot.slice %40 {limit = array<i64: 4, 4, 4, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<4x4x4x32xf32>
    %55 = poot.slice %40 {limit = array<i64: 4, 4, 4, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<4x4x4x32xf32>
    %56 = poot.neg %55 : tensor<4x4x4x16xf32>
    %57 = poot.concat %56, %54 {axis = 3 : i64} : tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>
    %58 = poot.mul %40, %18 : tensor<4x4x4x32xf32>, tensor<4x1x4x32xf32>
    %59 = poot.mul %57, %19 : tensor<4x4x4x32xf32>, tensor<4x1x4x32xf32>
    %60 = poot.add %58, %59 : tensor<4x4x4x32xf32>, tensor<4x4x4x32xf32>
    %61 = poot.slice %43 {limit = array<i64: 4, 2, 4, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<4x2x4x32xf32>
    %62 = poot.slice %43 {limit = array<i64: 4, 2, 4, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<4x2x4x32xf32>
    %63 = poot.neg %62 : tensor<4x2x4x16xf32>
    %64 = poot.concat %63, %61 {axis = 3 : i64} : tensor<4x2x4x16xf32>, tensor<4x2x4x16xf32>
    %65 = poot.mul %43, %18 : tensor<4x2x4x32xf32>, tensor<4x1x4x32xf32>
    %66 = poot.mul %64, %19 : tensor<4x2x4x32xf32>, tensor<4x1x4x32xf32>
    %67 = poot.add %65, %66 : tensor<4x2x4x32xf32>, tensor<4x2x4x32xf32>
    %68 = poot.transpose %67 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x4x32xf32>
    %69 = poot.reshape %68 : tensor<4x4x2x32xf32> -> tensor<16x2x32xf32>
    %70 = poot.scatter_update %arg13[%arg2], %69 : tensor<160x2x32xf32>, tensor<16xi32>, tensor<16x2x32xf32>
    %71 = poot.gather %70[%arg3] {axis = 0 : i64} : tensor<160x2x32xf32>, tensor<4x64xi32>
    %72 = poot.transpose %71 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x64x2x32xf32>
    %73 = poot.transpose %53 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x4x32xf32>
    %74 = poot.reshape %73 : tensor<4x4x2x32xf32> -> tensor<16x2x32xf32>
    %75 = poot.scatter_update %arg14[%arg2], %74 : tensor<160x2x32xf32>, tensor<16xi32>, tensor<16x2x32xf32>
    %76 = poot.gather %75[%arg3] {axis = 0 : i64} : tensor<160x2x32xf32>, tensor<4x64xi32>
    %77 = poot.transpose %76 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x64x2x32xf32>
    %78 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %79 = poot.compare gt, %78, %13 : tensor<1x1x1x64xi32>, tensor<4x1x4x1xi32>
    %80 = poot.constant dense<0xFF800000> : tensor<f32>
    %81 = poot.broadcast %80 {shape = array<i64: 4, 1, 4, 64>} : tensor<f32>
    %82 = poot.constant dense<0.000000e+00> : tensor<f32>
    %83 = poot.broadcast %82 {shape = array<i64: 4, 1, 4, 64>} : tensor<f32>
    %84 = poot.select %79, %81, %83 : tensor<4x1x4x64xi1>, tensor<4x1x4x64xf32>, tensor<4x1x4x64xf32>
    %85 = poot.reshape %72 : tensor<4x2x64x32xf32> -> tensor<4x2x1x64x32xf32>
    %86 = poot.broadcast %85 {shape = array<i64: 4, 2, 2, 64, 32>} : tensor<4x2x1x64x32xf32>
    %87 = poot.reshape %86 : tensor<4x2x2x64x32xf32> -> tensor<4x4x64x32xf32>
    %88 = poot.reshape %77 : tensor<4x2x64x32xf32> -> tensor<4x2x1x64x32xf32>
    %89 = poot.broadcast %88 {shape = array<i64: 4, 2, 2, 64, 32>} : tensor<4x2x1x64x32xf32>
    %90 = poot.reshape %89 : tensor<4x2x2x64x32xf32> -> tensor<4x4x64x32xf32>
    %91 = poot.transpose %87 {perm = array<i64: 0, 1, 3, 2>} : tensor<4x4x64x32xf32>
    %92 = poot.matmul %60, %91 : tensor<4x4x4x32xf32>, tensor<4x4x32x64xf32>
    %93 = poot.constant dense<0.176776692> : tensor<f32>
    %94 = poot.broadcast %93 {shape = array<i64: 4, 4, 4, 64>} : tensor<f32>
    %95 = poot.mul %92, %94 : tensor<4x4x4x64xf32>, tensor<4x4x4x64xf32>
    %96 = poot.add %95, %84 : tensor<4x4x4x64xf32>, tensor<4x1x4x64xf32>
    %97 = poot.reduce_max %96 {axis = 3 : i64, keepdim} : tensor<4x4x4x64xf32>
    %98 = poot.sub %96, %97 : tensor<4x4x4x64xf32>, tensor<4x4x4x1xf32>
    %99 = poot.exp %98 : tensor<4x4x4x64xf32>
    %100 = poot.reduce_sum %99 {axis = 3 : i64, keepdim} : tensor<4x4x4x64xf32>
    %101 = poot.div %99, %100 : tensor<4x4x4x64xf32>, tensor<4x4x4x1xf32>
    %102 = poot.matmul %101, %90 : tensor<4x4x4x64xf32>, tensor<4x4x64x32xf32>
    %103 = poot.transpose %102 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x4x32xf32>
    %104 = poot.reshape %103 : tensor<4x4x4x32xf32> -> tensor<4x4x128xf32>
    %105 = poot.matmul %104, %arg15 : tensor<4x4x128xf32>, tensor<128x128xf32>
    %106 = poot.add %arg0, %105 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    %107 = poot.mul %106, %106 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    %108 = poot.reduce_sum %107 {axis = 2 : i64, keepdim} : tensor<4x4x128xf32>
    %109 = poot.constant dense<7.812500e-03> : tensor<f32>
    %110 = poot.broadcast %109 {shape = array<i64: 4, 4, 1>} : tensor<f32>
    %111 = poot.mul %108, %110 : tensor<4x4x1xf32>, tensor<4x4x1xf32>
    %112 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %113 = poot.broadcast %112 {shape = array<i64: 4, 4, 1>} : tensor<f32>
    %114 = poot.add %111, %113 : tensor<4x4x1xf32>, tensor<4x4x1xf32>
    %115 = poot.rsqrt %114 : tensor<4x4x1xf32>
    %116 = poot.mul %106, %115 : tensor<4x4x128xf32>, tensor<4x4x1xf32>
    %117 = poot.mul %116, %arg16 : tensor<4x4x128xf32>, tensor<128xf32>
    %118 = poot.matmul %117, %arg17 : tensor<4x4x128xf32>, tensor<128x128xf32>
    %119 = poot.gather %arg18[%5] {axis = 0 : i64} : tensor<2x128x4xf32>, tensor<4xi32>
    %120 = poot.gather %arg19[%5] {axis = 0 : i64} : tensor<2x4x128xf32>, tensor<4xi32>
    %121 = poot.matmul %117, %119 : tensor<4x4x128xf32>, tensor<4x128x4xf32>
    %122 = poot.matmul %121, %120 : tensor<4x4x4xf32>, tensor<4x4x128xf32>
    %123 = poot.broadcast %10 {shape = array<i64: 4, 4, 128>} : tensor<4x1x1xf32>
    %124 = poot.mul %122, %123 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    %125 = poot.add %118, %124 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    %126 = poot.reshape %125 : tensor<4x4x128xf32> -> tensor<4x4x4x32xf32>
    %127 = poot.transpose %126 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x4x32xf32>
    %128 = poot.matmul %117, %arg20 : tensor<4x4x128xf32>, tensor<128x64xf32>
    %129 = poot.reshape %128 : tensor<4x4x64xf32> -> tensor<4x4x2x32xf32>
    %130 = poot.transpose %129 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x2x32xf32>
    %131 = poot.matmul %117, %arg21 : tensor<4x4x128xf32>, tensor<128x64xf32>
    %132 = poot.gather %arg22[%5] {axis = 0 : i64} : tensor<2x128x4xf32>, tensor<4xi32>
    %133 = poot.gather %arg23[%5] {axis = 0 : i64} : tensor<2x4x64xf32>, tensor<4xi32>
    %134 = poot.matmul %117, %132 : tensor<4x4x128xf32>, tensor<4x128x4xf32>
    %135 = poot.matmul %134, %133 : tensor<4x4x4xf32>, tensor<4x4x64xf32>
    %136 = poot.broadcast %10 {shape = array<i64: 4, 4, 64>} : tensor<4x1x1xf32>
    %137 = poot.mul %135, %136 : tensor<4x4x64xf32>, tensor<4x4x64xf32>
    %138 = poot.add %131, %137 : tensor<4x4x64xf32>, tensor<4x4x64xf32>
    %139 = poot.reshape %138 : tensor<4x4x64xf32> -> tensor<4x4x2x32xf32>
    %140 = poot.transpose %139 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x2x32xf32>
    %141 = poot.slice %127 {limit = array<i64: 4, 4, 4, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<4x4x4x32xf32>
    %142 = poot.slice %127 {limit = array<i64: 4, 4, 4, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<4x4x4x32xf32>
    %143 = poot.neg %142 : tensor<4x4x4x16xf32>
    %144 = poot.concat %143, %141 {axis = 3 : i64} : tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>
    %145 = poot.mul %127, %18 : tensor<4x4x4x32xf32>, tensor<4x1x4x32xf32>
    %146 = poot.mul %144, %19 : tensor<4x4x4x32xf32>, tensor<4x1x4x32xf32>
    %147 = poot.add %145, %146 : tensor<4x4x4x32xf32>, tensor<4x4x4x32xf32>
    %148 = poot.slice %130 {limit = array<i64: 4, 2, 4, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<4x2x4x32xf32>
    %149 = poot.slice %130 {limit = array<i64: 4, 2, 4, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<4x2x4x32xf32>
    %150 = poot.neg %149 : tensor<4x2x4x16xf32>
    %151 = poot.concat %150, %148 {axis = 3 : i64} : tensor<4x2x4x16xf32>, tensor<4x2x4x16xf32>
    %152 = poot.mul %130, %18 : tensor<4x2x4x32xf32>, tensor<4x1x4x32xf32>
    %153 = poot.mul %151, %19 : tensor<4x2x4x32xf32>, tensor<4x1x4x32xf32>
    %154 = poot.add %152, %153 : tensor<4x2x4x32xf32>, tensor<4x2x4x32xf32>
    %155 = poot.transpose %154 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x4x32xf32>
    %156 = poot.reshape %155 : tensor<4x4x2x32xf32> -> tensor<16x2x32xf32>
    %157 = poot.scatter_update %arg24[%arg2], %156 : tensor<160x2x32xf32>, tensor<16xi32>, tensor<16x2x32xf32>
    %158 = poot.gather %157[%arg3] {axis = 0 : i64} : tensor<160x2x32xf32>, tensor<4x64xi32>
    %159 = poot.transpose %158 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x64x2x32xf32>
    %160 = poot.transpose %140 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x4x32xf32>
    %161 = poot.reshape %160 : tensor<4x4x2x32xf32> -> tensor<16x2x32xf32>
    %162 = poot.scatter_update %arg25[%arg2], %161 : tensor<160x2x32xf32>, tensor<16xi32>, tensor<16x2x32xf32>
    %163 = poot.gather %162[%arg3] {axis = 0 : i64} : tensor<160x2x32xf32>, tensor<4x64xi32>
    %164 = poot.transpose %163 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x64x2x32xf32>
    %165 = poot.reshape %159 : tensor<4x2x64x32xf32> -> tensor<4x2x1x64x32xf32>
    %166 = poot.broadcast %165 {shape = array<i64: 4, 2, 2, 64, 32>} : tensor<4x2x1x64x32xf32>
    %167 = poot.reshape %166 : tensor<4x2x2x64x32xf32> -> tensor<4x4x64x32xf32>
    %168 = poot.reshape %164 : tensor<4x2x64x32xf32> -> tensor<4x2x1x64x32xf32>
    %169 = poot.broadcast %168 {shape = array<i64: 4, 2, 2, 64, 32>} : tensor<4x2x1x64x32xf32>
    %170 = poot.reshape %169 : tensor<4x2x2x64x32xf32> -> tensor<4x4x64x32xf32>
    %171 = poot.transpose %167 {perm = array<i64: 0, 1, 3, 2>} : tensor<4x4x64x32xf32>
    %172 = poot.matmul %147, %171 : tensor<4x4x4x32xf32>, tensor<4x4x32x64xf32>
    %173 = poot.constant dense<0.176776692> : tensor<f32>
    %174 = poot.broadcast %173 {shape = array<i64: 4, 4, 4, 64>} : tensor<f32>
    %175 = poot.mul %172, %174 : tensor<4x4x4x64xf32>, tensor<4x4x4x64xf32>
    %176 = poot.add %175, %84 : tensor<4x4x4x64xf32>, tensor<4x1x4x64xf32>
    %177 = poot.reduce_max %176 {axis = 3 : i64, keepdim} : tensor<4x4x4x64xf32>
    %178 = poot.sub %176, %177 : tensor<4x4x4x64xf32>, tensor<4x4x4x1xf32>
    %179 = poot.exp %178 : tensor<4x4x4x64xf32>
    %180 = poot.reduce_sum %179 {axis = 3 : i64, keepdim} : tensor<4x4x4x64xf32>
    %181 = poot.div %179, %180 : tensor<4x4x4x64xf32>, tensor<4x4x4x1xf32>
    %182 = poot.matmul %181, %170 : tensor<4x4x4x64xf32>, tensor<4x4x64x32xf32>
    %183 = poot.transpose %182 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x4x32xf32>
    %184 = poot.reshape %183 : tensor<4x4x4x32xf32> -> tensor<4x4x128xf32>
    %185 = poot.matmul %184, %arg26 : tensor<4x4x128xf32>, tensor<128x128xf32>
    %186 = poot.add %106, %185 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    return %186, %70, %75, %157, %162 : tensor<4x4x128xf32>, tensor<160x2x32xf32>, tensor<160x2x32xf32>, tensor<160x2x32xf32>, tensor<160x2x32xf32>
  }
}

