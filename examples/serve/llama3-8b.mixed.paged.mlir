// Generated for examples/serve (README.md): poot-trace --small --model=llama3-8b --phase=decode --cache=paged --tokens=4 --batch=4 --pool-slots=96
module {
  func.func @llama3_8b_decode_paged(%arg0: tensor<4x4x128xf32> {poot.name = "x"}, %arg1: tensor<4xi32> {poot.name = "pos", poot.range = array<i64: 0, 61>, poot.slot = "pos"}, %arg2: tensor<16xi32> {poot.name = "write_map", poot.range = array<i64: -1, 96>, poot.slot = "write_map"}, %arg3: tensor<4x64xi32> {poot.name = "slot_map", poot.range = array<i64: 0, 96>, poot.slot = "slot_map"}, %arg4: tensor<128xf32> {poot.name = "l0.attn_norm"}, %arg5: tensor<128x128xf32> {poot.name = "l0.wq"}, %arg6: tensor<128x64xf32> {poot.name = "l0.wk"}, %arg7: tensor<128x64xf32> {poot.name = "l0.wv"}, %arg8: tensor<96x2x32xf32> {poot.name = "l0.k_pool", poot.state = "l0.k_pool"}, %arg9: tensor<96x2x32xf32> {poot.name = "l0.v_pool", poot.state = "l0.v_pool"}, %arg10: tensor<128x128xf32> {poot.name = "l0.wo"}, %arg11: tensor<128xf32> {poot.name = "l1.attn_norm"}, %arg12: tensor<128x128xf32> {poot.name = "l1.wq"}, %arg13: tensor<128x64xf32> {poot.name = "l1.wk"}, %arg14: tensor<128x64xf32> {poot.name = "l1.wv"}, %arg15: tensor<96x2x32xf32> {poot.name = "l1.k_pool", poot.state = "l1.k_pool"}, %arg16: tensor<96x2x32xf32> {poot.name = "l1.v_pool", poot.state = "l1.v_pool"}, %arg17: tensor<128x128xf32> {poot.name = "l1.wo"}) -> (tensor<4x4x128xf32> {poot.name = "y"}, tensor<96x2x32xf32> {poot.name = "l0.k_pool", poot.state = "l0.k_pool"}, tensor<96x2x32xf32> {poot.name = "l0.v_pool", poot.state = "l0.v_pool"}, tensor<96x2x32xf32> {poot.name = "l1.k_pool", poot.state = "l1.k_pool"}, tensor<96x2x32xf32> {poot.name = "l1.v_pool", poot.state = "l1.v_pool"}) {
    %0 = poot.reshape %arg1 : tensor<4xi32> -> tensor<4x1x1x1xi32>
    %1 = poot.iota {dim = 2 : i64} : tensor<1x1x4x1xi32>
    %2 = poot.add %0, %1 : tensor<4x1x1x1xi32>, tensor<1x1x4x1xi32>
    %3 = poot.convert %2 : tensor<4x1x4x1xi32> -> tensor<4x1x4x1xf32>
    %4 = poot.constant dense<[[[[1.000000e+00, 0.440366596, 0.193922743, 8.539710e-02, 0.0376060307, 0.0165604409, 0.00729266461, 0.00321144611, 0.00141421356, 6.22772437E-4, 2.74248188E-4, 1.20769735E-4, 5.31829573E-5, 2.342000e-05, 1.03133852E-5, 4.54167048E-6]]]]> : tensor<1x1x1x16xf32>
    %5 = poot.mul %3, %4 : tensor<4x1x4x1xf32>, tensor<1x1x1x16xf32>
    %6 = poot.concat %5, %5 {axis = 3 : i64} : tensor<4x1x4x16xf32>, tensor<4x1x4x16xf32>
    %7 = poot.cos %6 : tensor<4x1x4x32xf32>
    %8 = poot.sin %6 : tensor<4x1x4x32xf32>
    %9 = poot.mul %arg0, %arg0 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    %10 = poot.reduce_sum %9 {axis = 2 : i64, keepdim} : tensor<4x4x128xf32>
    %11 = poot.constant dense<7.812500e-03> : tensor<f32>
    %12 = poot.broadcast %11 {shape = array<i64: 4, 4, 1>} : tensor<f32>
    %13 = poot.mul %10, %12 : tensor<4x4x1xf32>, tensor<4x4x1xf32>
    %14 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %15 = poot.broadcast %14 {shape = array<i64: 4, 4, 1>} : tensor<f32>
    %16 = poot.add %13, %15 : tensor<4x4x1xf32>, tensor<4x4x1xf32>
    %17 = poot.rsqrt %16 : tensor<4x4x1xf32>
    %18 = poot.mul %arg0, %17 : tensor<4x4x128xf32>, tensor<4x4x1xf32>
    %19 = poot.mul %18, %arg4 : tensor<4x4x128xf32>, tensor<128xf32>
    %20 = poot.matmul %19, %arg5 : tensor<4x4x128xf32>, tensor<128x128xf32>
    %21 = poot.reshape %20 : tensor<4x4x128xf32> -> tensor<4x4x4x32xf32>
    %22 = poot.transpose %21 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x4x32xf32>
    %23 = poot.matmul %19, %arg6 : tensor<4x4x128xf32>, tensor<128x64xf32>
    %24 = poot.reshape %23 : tensor<4x4x64xf32> -> tensor<4x4x2x32xf32>
    %25 = poot.transpose %24 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x2x32xf32>
    %26 = poot.matmul %19, %arg7 : tensor<4x4x128xf32>, tensor<128x64xf32>
    %27 = poot.reshape %26 : tensor<4x4x64xf32> -> tensor<4x4x2x32xf32>
    %28 = poot.transpose %27 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x2x32xf32>
    %29 = poot.slice %22 {limit = array<i64: 4, 4, 4, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<4x4x4x32xf32>
    %30 = poot.slice %22 {limit = array<i64: 4, 4, 4, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<4x4x4x32xf32>
    %31 = poot.neg %30 : tensor<4x4x4x16xf32>
    %32 = poot.concat %31, %29 {axis = 3 : i64} : tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>
    %33 = poot.mul %22, %7 : tensor<4x4x4x32xf32>, tensor<4x1x4x32xf32>
    %34 = poot.mul %32, %8 : tensor<4x4x4x32xf32>, tensor<4x1x4x32xf32>
    %35 = poot.add %33, %34 : tensor<4x4x4x32xf32>, tensor<4x4x4x32xf32>
    %36 = poot.slice %25 {limit = array<i64: 4, 2, 4, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<4x2x4x32xf32>
    %37 = poot.slice %25 {limit = array<i64: 4, 2, 4, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<4x2x4x32xf32>
    %38 = poot.neg %37 : tensor<4x2x4x16xf32>
    %39 = poot.concat %38, %36 {axis = 3 : i64} : tensor<4x2x4x16xf32>, tensor<4x2x4x16xf32>
    %40 = poot.mul %25, %7 : tensor<4x2x4x32xf32>, tensor<4x1x4x32xf32>
    %41 = poot.mul %39, %8 : tensor<4x2x4x32xf32>, tensor<4x1x4x32xf32>
    %42 = poot.add %40, %41 : tensor<4x2x4x32xf32>, tensor<4x2x4x32xf32>
    %43 = poot.transpose %42 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x4x32xf32>
    %44 = poot.reshape %43 : tensor<4x4x2x32xf32> -> tensor<16x2x32xf32>
    %45 = poot.scatter_update %arg8[%arg2], %44 : tensor<96x2x32xf32>, tensor<16xi32>, tensor<16x2x32xf32>
    %46 = poot.gather %45[%arg3] {axis = 0 : i64} : tensor<96x2x32xf32>, tensor<4x64xi32>
    %47 = poot.transpose %46 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x64x2x32xf32>
    %48 = poot.transpose %28 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x4x32xf32>
    %49 = poot.reshape %48 : tensor<4x4x2x32xf32> -> tensor<16x2x32xf32>
    %50 = poot.scatter_update %arg9[%arg2], %49 : tensor<96x2x32xf32>, tensor<16xi32>, tensor<16x2x32xf32>
    %51 = poot.gather %50[%arg3] {axis = 0 : i64} : tensor<96x2x32xf32>, tensor<4x64xi32>
    %52 = poot.transpose %51 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x64x2x32xf32>
    %53 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %54 = poot.compare gt, %53, %2 : tensor<1x1x1x64xi32>, tensor<4x1x4x1xi32>
    %55 = poot.constant dense<0xFF800000> : tensor<f32>
    %56 = poot.broadcast %55 {shape = array<i64: 4, 1, 4, 64>} : tensor<f32>
    %57 = poot.constant dense<0.000000e+00> : tensor<f32>
    %58 = poot.broadcast %57 {shape = array<i64: 4, 1, 4, 64>} : tensor<f32>
    %59 = poot.select %54, %56, %58 : tensor<4x1x4x64xi1>, tensor<4x1x4x64xf32>, tensor<4x1x4x64xf32>
    %60 = poot.reshape %47 : tensor<4x2x64x32xf32> -> tensor<4x2x1x64x32xf32>
    %61 = poot.broadcast %60 {shape = array<i64: 4, 2, 2, 64, 32>} : tensor<4x2x1x64x32xf32>
    %62 = poot.reshape %61 : tensor<4x2x2x64x32xf32> -> tensor<4x4x64x32xf32>
    %63 = poot.reshape %52 : tensor<4x2x64x32xf32> -> tensor<4x2x1x64x32xf32>
    %64 = poot.broadcast %63 {shape = array<i64: 4, 2, 2, 64, 32>} : tensor<4x2x1x64x32xf32>
    %65 = poot.reshape %64 : tensor<4x2x2x64x32xf32> -> tensor<4x4x64x32xf32>
    %66 = poot.transpose %62 {perm = array<i64: 0, 1, 3, 2>} : tensor<4x4x64x32xf32>
    %67 = poot.matmul %35, %66 : tensor<4x4x4x32xf32>, tensor<4x4x32x64xf32>
    %68 = poot.constant dense<0.176776692> : tensor<f32>
    %69 = poot.broadcast %68 {shape = array<i64: 4, 4, 4, 64>} : tensor<f32>
    %70 = poot.mul %67, %69 : tensor<4x4x4x64xf32>, tensor<4x4x4x64xf32>
    %71 = poot.add %70, %59 : tensor<4x4x4x64xf32>, tensor<4x1x4x64xf32>
    %72 = poot.reduce_max %71 {axis = 3 : i64, keepdim} : tensor<4x4x4x64xf32>
    %73 = poot.sub %71, %72 : tensor<4x4x4x64xf32>, tensor<4x4x4x1xf32>
    %74 = poot.exp %73 : tensor<4x4x4x64xf32>
    %75 = poot.reduce_sum %74 {axis = 3 : i64, keepdim} : tensor<4x4x4x64xf32>
    %76 = poot.div %74, %75 : tensor<4x4x4x64xf32>, tensor<4x4x4x1xf32>
    %77 = poot.matmul %76, %65 : tensor<4x4x4x64xf32>, tensor<4x4x64x32xf32>
    %78 = poot.transpose %77 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x4x32xf32>
    %79 = poot.reshape %78 : tensor<4x4x4x32xf32> -> tensor<4x4x128xf32>
    %80 = poot.matmul %79, %arg10 : tensor<4x4x128xf32>, tensor<128x128xf32>
    %81 = poot.add %arg0, %80 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    %82 = poot.mul %81, %81 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    %83 = poot.reduce_sum %82 {axis = 2 : i64, keepdim} : tensor<4x4x128xf32>
    %84 = poot.constant dense<7.812500e-03> : tensor<f32>
    %85 = poot.broadcast %84 {shape = array<i64: 4, 4, 1>} : tensor<f32>
    %86 = poot.mul %83, %85 : tensor<4x4x1xf32>, tensor<4x4x1xf32>
    %87 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %88 = poot.broadcast %87 {shape = array<i64: 4, 4, 1>} : tensor<f32>
    %89 = poot.add %86, %88 : tensor<4x4x1xf32>, tensor<4x4x1xf32>
    %90 = poot.rsqrt %89 : tensor<4x4x1xf32>
    %91 = poot.mul %81, %90 : tensor<4x4x128xf32>, tensor<4x4x1xf32>
    %92 = poot.mul %91, %arg11 : tensor<4x4x128xf32>, tensor<128xf32>
    %93 = poot.matmul %92, %arg12 : tensor<4x4x128xf32>, tensor<128x128xf32>
    %94 = poot.reshape %93 : tensor<4x4x128xf32> -> tensor<4x4x4x32xf32>
    %95 = poot.transpose %94 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x4x32xf32>
    %96 = poot.matmul %92, %arg13 : tensor<4x4x128xf32>, tensor<128x64xf32>
    %97 = poot.reshape %96 : tensor<4x4x64xf32> -> tensor<4x4x2x32xf32>
    %98 = poot.transpose %97 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x2x32xf32>
    %99 = poot.matmul %92, %arg14 : tensor<4x4x128xf32>, tensor<128x64xf32>
    %100 = poot.reshape %99 : tensor<4x4x64xf32> -> tensor<4x4x2x32xf32>
    %101 = poot.transpose %100 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x2x32xf32>
    %102 = poot.slice %95 {limit = array<i64: 4, 4, 4, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<4x4x4x32xf32>
    %103 = poot.slice %95 {limit = array<i64: 4, 4, 4, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<4x4x4x32xf32>
    %104 = poot.neg %103 : tensor<4x4x4x16xf32>
    %105 = poot.concat %104, %102 {axis = 3 : i64} : tensor<4x4x4x16xf32>, tensor<4x4x4x16xf32>
    %106 = poot.mul %95, %7 : tensor<4x4x4x32xf32>, tensor<4x1x4x32xf32>
    %107 = poot.mul %105, %8 : tensor<4x4x4x32xf32>, tensor<4x1x4x32xf32>
    %108 = poot.add %106, %107 : tensor<4x4x4x32xf32>, tensor<4x4x4x32xf32>
    %109 = poot.slice %98 {limit = array<i64: 4, 2, 4, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<4x2x4x32xf32>
    %110 = poot.slice %98 {limit = array<i64: 4, 2, 4, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<4x2x4x32xf32>
    %111 = poot.neg %110 : tensor<4x2x4x16xf32>
    %112 = poot.concat %111, %109 {axis = 3 : i64} : tensor<4x2x4x16xf32>, tensor<4x2x4x16xf32>
    %113 = poot.mul %98, %7 : tensor<4x2x4x32xf32>, tensor<4x1x4x32xf32>
    %114 = poot.mul %112, %8 : tensor<4x2x4x32xf32>, tensor<4x1x4x32xf32>
    %115 = poot.add %113, %114 : tensor<4x2x4x32xf32>, tensor<4x2x4x32xf32>
    %116 = poot.transpose %115 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x4x32xf32>
    %117 = poot.reshape %116 : tensor<4x4x2x32xf32> -> tensor<16x2x32xf32>
    %118 = poot.scatter_update %arg15[%arg2], %117 : tensor<96x2x32xf32>, tensor<16xi32>, tensor<16x2x32xf32>
    %119 = poot.gather %118[%arg3] {axis = 0 : i64} : tensor<96x2x32xf32>, tensor<4x64xi32>
    %120 = poot.transpose %119 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x64x2x32xf32>
    %121 = poot.transpose %101 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x4x32xf32>
    %122 = poot.reshape %121 : tensor<4x4x2x32xf32> -> tensor<16x2x32xf32>
    %123 = poot.scatter_update %arg16[%arg2], %122 : tensor<96x2x32xf32>, tensor<16xi32>, tensor<16x2x32xf32>
    %124 = poot.gather %123[%arg3] {axis = 0 : i64} : tensor<96x2x32xf32>, tensor<4x64xi32>
    %125 = poot.transpose %124 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x64x2x32xf32>
    %126 = poot.reshape %120 : tensor<4x2x64x32xf32> -> tensor<4x2x1x64x32xf32>
    %127 = poot.broadcast %126 {shape = array<i64: 4, 2, 2, 64, 32>} : tensor<4x2x1x64x32xf32>
    %128 = poot.reshape %127 : tensor<4x2x2x64x32xf32> -> tensor<4x4x64x32xf32>
    %129 = poot.reshape %125 : tensor<4x2x64x32xf32> -> tensor<4x2x1x64x32xf32>
    %130 = poot.broadcast %129 {shape = array<i64: 4, 2, 2, 64, 32>} : tensor<4x2x1x64x32xf32>
    %131 = poot.reshape %130 : tensor<4x2x2x64x32xf32> -> tensor<4x4x64x32xf32>
    %132 = poot.transpose %128 {perm = array<i64: 0, 1, 3, 2>} : tensor<4x4x64x32xf32>
    %133 = poot.matmul %108, %132 : tensor<4x4x4x32xf32>, tensor<4x4x32x64xf32>
    %134 = poot.constant dense<0.176776692> : tensor<f32>
    %135 = poot.broadcast %134 {shape = array<i64: 4, 4, 4, 64>} : tensor<f32>
    %136 = poot.mul %133, %135 : tensor<4x4x4x64xf32>, tensor<4x4x4x64xf32>
    %137 = poot.add %136, %59 : tensor<4x4x4x64xf32>, tensor<4x1x4x64xf32>
    %138 = poot.reduce_max %137 {axis = 3 : i64, keepdim} : tensor<4x4x4x64xf32>
    %139 = poot.sub %137, %138 : tensor<4x4x4x64xf32>, tensor<4x4x4x1xf32>
    %140 = poot.exp %139 : tensor<4x4x4x64xf32>
    %141 = poot.reduce_sum %140 {axis = 3 : i64, keepdim} : tensor<4x4x4x64xf32>
    %142 = poot.div %140, %141 : tensor<4x4x4x64xf32>, tensor<4x4x4x1xf32>
    %143 = poot.matmul %142, %131 : tensor<4x4x4x64xf32>, tensor<4x4x64x32xf32>
    %144 = poot.transpose %143 {perm = array<i64: 0, 2, 1, 3>} : tensor<4x4x4x32xf32>
    %145 = poot.reshape %144 : tensor<4x4x4x32xf32> -> tensor<4x4x128xf32>
    %146 = poot.matmul %145, %arg17 : tensor<4x4x128xf32>, tensor<128x128xf32>
    %147 = poot.add %81, %146 : tensor<4x4x128xf32>, tensor<4x4x128xf32>
    return %147, %45, %50, %118, %123 : tensor<4x4x128xf32>, tensor<96x2x32xf32>, tensor<96x2x32xf32>, tensor<96x2x32xf32>, tensor<96x2x32xf32>
  }
}

