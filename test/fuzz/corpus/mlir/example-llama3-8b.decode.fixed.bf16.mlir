module {
  func.func @llama3_8b_decode_fixed(%arg0: tensor<2x1x128xbf16> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 64>, poot.slot = "pos"}, %arg2: tensor<128xbf16> {poot.name = "l0.attn_norm"}, %arg3: tensor<128x128xbf16> {poot.name = "l0.wq"}, %arg4: tensor<128x64xbf16> {poot.name = "l0.wk"}, %arg5: tensor<128x64xbf16> {poot.name = "l0.wv"}, %arg6: tensor<2x2x64x32xbf16> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, %arg7: tensor<2x2x64x32xbf16> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}, %arg8: tensor<128x128xbf16> {poot.name = "l0.wo"}, %arg9: tensor<128xbf16> {poot.name = "l1.attn_norm"}, %arg10: tensor<128x128xbf16> {poot.name = "l1.wq"}, %arg11: tensor<128x64xbf16> {poot.name = "l1.wk"}, %arg12: tensor<128x64xbf16> {poot.name = "l1.wv"}, %arg13: tensor<2x2x64x32xbf16> {poot.name = "l1.k_cache", poot.state = "l1.k_cache"}, %arg14: tensor<2x2x64x32xbf16> {poot.name = "l1.v_cache", poot.state = "l1.v_cache"}, %arg15: tensor<128x128xbf16> {poot.name = "l1.wo"}) -> (tensor<2x1x128xbf16> {poot.name = "y"}, tensor<2x2x64x32xbf16> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, tensor<2x2x64x32xbf16> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}, tensor<2x2x64x32xbf16> {poot.name = "l1.k_cache", poot.state = "l1.k_cache"}, tensor<2x2x64x32xbf16> {poot.name = "l1.v_cache", poot.state = "l1.v_cache"}) {
    %0 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.convert %0 : tensor<1x1x1x1xi32> -> tensor<1x1x1x1xf32>
    %2 = poot.constant dense<[[[[1.000000e+00, 0.440366596, 0.193922743, 8.539710e-02, 0.0376060307, 0.0165604409, 0.00729266461, 0.00321144611, 0.00141421356, 6.22772437E-4, 2.74248188E-4, 1.20769735E-4, 5.31829573E-5, 2.342000e-05, 1.03133852E-5, 4.54167048E-6]]]]> : tensor<1x1x1x16xf32>
    %3 = poot.mul %1, %2 : tensor<1x1x1x1xf32>, tensor<1x1x1x16xf32>
    %4 = poot.concat %3, %3 {axis = 3 : i64} : tensor<1x1x1x16xf32>, tensor<1x1x1x16xf32>
    %5 = poot.cos %4 : tensor<1x1x1x32xf32>
    %6 = poot.convert %5 : tensor<1x1x1x32xf32> -> tensor<1x1x1x32xbf16>
    %7 = poot.sin %4 : tensor<1x1x1x32xf32>
    %8 = poot.convert %7 : tensor<1x1x1x32xf32> -> tensor<1x1x1x32xbf16>
    %9 = poot.convert %arg0 : tensor<2x1x128xbf16> -> tensor<2x1x128xf32>
    %10 = poot.mul %9, %9 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %11 = poot.reduce_sum %10 {axis = 2 : i64, keepdim} : tensor<2x1x128xf32>
    %12 = poot.constant dense<7.812500e-03> : tensor<f32>
    %13 = poot.broadcast %12 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %14 = poot.mul %11, %13 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %15 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %16 = poot.broadcast %15 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %17 = poot.add %14, %16 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %18 = poot.rsqrt %17 : tensor<2x1x1xf32>
    %19 = poot.mul %9, %18 : tensor<2x1x128xf32>, tensor<2x1x1xf32>
    %20 = poot.convert %19 : tensor<2x1x128xf32> -> tensor<2x1x128xbf16>
    %21 = poot.mul %20, %arg2 : tensor<2x1x128xbf16>, tensor<128xbf16>
    %22 = poot.matmul %21, %arg3 : tensor<2x1x128xbf16>, tensor<128x128xbf16>
    %23 = poot.reshape %22 : tensor<2x1x128xbf16> -> tensor<2x1x4x32xbf16>
    %24 = poot.transpose %23 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xbf16>
    %25 = poot.matmul %21, %arg4 : tensor<2x1x128xbf16>, tensor<128x64xbf16>
    %26 = poot.reshape %25 : tensor<2x1x64xbf16> -> tensor<2x1x2x32xbf16>
    %27 = poot.transpose %26 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x32xbf16>
    %28 = poot.matmul %21, %arg5 : tensor<2x1x128xbf16>, tensor<128x64xbf16>
    %29 = poot.reshape %28 : tensor<2x1x64xbf16> -> tensor<2x1x2x32xbf16>
    %30 = poot.transpose %29 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x32xbf16>
    %31 = poot.slice %24 {limit = array<i64: 2, 4, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x32xbf16>
    %32 = poot.slice %24 {limit = array<i64: 2, 4, 1, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x32xbf16>
    %33 = poot.neg %32 : tensor<2x4x1x16xbf16>
    %34 = poot.concat %33, %31 {axis = 3 : i64} : tensor<2x4x1x16xbf16>, tensor<2x4x1x16xbf16>
    %35 = poot.mul %24, %6 : tensor<2x4x1x32xbf16>, tensor<1x1x1x32xbf16>
    %36 = poot.mul %34, %8 : tensor<2x4x1x32xbf16>, tensor<1x1x1x32xbf16>
    %37 = poot.add %35, %36 : tensor<2x4x1x32xbf16>, tensor<2x4x1x32xbf16>
    %38 = poot.slice %27 {limit = array<i64: 2, 2, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x32xbf16>
    %39 = poot.slice %27 {limit = array<i64: 2, 2, 1, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x32xbf16>
    %40 = poot.neg %39 : tensor<2x2x1x16xbf16>
    %41 = poot.concat %40, %38 {axis = 3 : i64} : tensor<2x2x1x16xbf16>, tensor<2x2x1x16xbf16>
    %42 = poot.mul %27, %6 : tensor<2x2x1x32xbf16>, tensor<1x1x1x32xbf16>
    %43 = poot.mul %41, %8 : tensor<2x2x1x32xbf16>, tensor<1x1x1x32xbf16>
    %44 = poot.add %42, %43 : tensor<2x2x1x32xbf16>, tensor<2x2x1x32xbf16>
    %45 = poot.constant dense<0> : tensor<i32>
    %46 = poot.dynamic_update_slice %arg6[%45, %45, %arg1, %45], %44 : tensor<2x2x64x32xbf16>, tensor<2x2x1x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %47 = poot.dynamic_update_slice %arg7[%45, %45, %arg1, %45], %30 : tensor<2x2x64x32xbf16>, tensor<2x2x1x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %48 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %49 = poot.compare gt, %48, %0 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %50 = poot.constant dense<0xFF80> : tensor<bf16>
    %51 = poot.broadcast %50 {shape = array<i64: 1, 1, 1, 64>} : tensor<bf16>
    %52 = poot.constant dense<0.000000e+00> : tensor<bf16>
    %53 = poot.broadcast %52 {shape = array<i64: 1, 1, 1, 64>} : tensor<bf16>
    %54 = poot.select %49, %51, %53 : tensor<1x1x1x64xi1>, tensor<1x1x1x64xbf16>, tensor<1x1x1x64xbf16>
    %55 = poot.broadcast %54 {shape = array<i64: 2, 1, 1, 64>} : tensor<1x1x1x64xbf16>
    %56 = poot.reshape %46 : tensor<2x2x64x32xbf16> -> tensor<2x2x1x64x32xbf16>
    %57 = poot.broadcast %56 {shape = array<i64: 2, 2, 2, 64, 32>} : tensor<2x2x1x64x32xbf16>
    %58 = poot.reshape %57 : tensor<2x2x2x64x32xbf16> -> tensor<2x4x64x32xbf16>
    %59 = poot.reshape %47 : tensor<2x2x64x32xbf16> -> tensor<2x2x1x64x32xbf16>
    %60 = poot.broadcast %59 {shape = array<i64: 2, 2, 2, 64, 32>} : tensor<2x2x1x64x32xbf16>
    %61 = poot.reshape %60 : tensor<2x2x2x64x32xbf16> -> tensor<2x4x64x32xbf16>
    %62 = poot.transpose %58 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x32xbf16>
    %63 = poot.matmul %37, %62 : tensor<2x4x1x32xbf16>, tensor<2x4x32x64xbf16>
    %64 = poot.constant dense<1.767580e-01> : tensor<bf16>
    %65 = poot.broadcast %64 {shape = array<i64: 2, 4, 1, 64>} : tensor<bf16>
    %66 = poot.mul %63, %65 : tensor<2x4x1x64xbf16>, tensor<2x4x1x64xbf16>
    %67 = poot.add %66, %55 : tensor<2x4x1x64xbf16>, tensor<2x1x1x64xbf16>
    %68 = poot.convert %67 : tensor<2x4x1x64xbf16> -> tensor<2x4x1x64xf32>
    %69 = poot.reduce_max %68 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %70 = poot.sub %68, %69 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %71 = poot.exp %70 : tensor<2x4x1x64xf32>
    %72 = poot.reduce_sum %71 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %73 = poot.div %71, %72 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %74 = poot.convert %73 : tensor<2x4x1x64xf32> -> tensor<2x4x1x64xbf16>
    %75 = poot.matmul %74, %61 : tensor<2x4x1x64xbf16>, tensor<2x4x64x32xbf16>
    %76 = poot.transpose %75 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x32xbf16>
    %77 = poot.reshape %76 : tensor<2x1x4x32xbf16> -> tensor<2x1x128xbf16>
    %78 = poot.matmul %77, %arg8 : tensor<2x1x128xbf16>, tensor<128x128xbf16>
    %79 = poot.add %arg0, %78 : tensor<2x1x128xbf16>, tensor<2x1x128xbf16>
    %80 = poot.convert %79 : tensor<2x1x128xbf16> -> tensor<2x1x128xf32>
    %81 = poot.mul %80, %80 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %82 = poot.reduce_sum %81 {axis = 2 : i64, keepdim} : tensor<2x1x128xf32>
    %83 = poot.constant dense<7.812500e-03> : tensor<f32>
    %84 = poot.broadcast %83 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %85 = poot.mul %82, %84 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %86 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %87 = poot.broadcast %86 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %88 = poot.add %85, %87 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %89 = poot.rsqrt %88 : tensor<2x1x1xf32>
    %90 = poot.mul %80, %89 : tensor<2x1x128xf32>, tensor<2x1x1xf32>
    %91 = poot.convert %90 : tensor<2x1x128xf32> -> tensor<2x1x128xbf16>
    %92 = poot.mul %91, %arg9 : tensor<2x1x128xbf16>, tensor<128xbf16>
    %93 = poot.matmul %92, %arg10 : tensor<2x1x128xbf16>, tensor<128x128xbf16>
    %94 = poot.reshape %93 : tensor<2x1x128xbf16> -> tensor<2x1x4x32xbf16>
    %95 = poot.transpose %94 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xbf16>
    %96 = poot.matmul %92, %arg11 : tensor<2x1x128xbf16>, tensor<128x64xbf16>
    %97 = poot.reshape %96 : tensor<2x1x64xbf16> -> tensor<2x1x2x32xbf16>
    %98 = poot.transpose %97 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x32xbf16>
    %99 = poot.matmul %92, %arg12 : tensor<2x1x128xbf16>, tensor<128x64xbf16>
    %100 = poot.reshape %99 : tensor<2x1x64xbf16> -> tensor<2x1x2x32xbf16>
    %101 = poot.transpose %100 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x32xbf16>
    %102 = poot.slice %95 {limit = array<i64: 2, 4, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x32xbf16>
    %103 = poot.slice %95 {limit = array<i64: 2, 4, 1, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x32xbf16>
    %104 = poot.neg %103 : tensor<2x4x1x16xbf16>
    %105 = poot.concat %104, %102 {axis = 3 : i64} : tensor<2x4x1x16xbf16>, tensor<2x4x1x16xbf16>
    %106 = poot.mul %95, %6 : tensor<2x4x1x32xbf16>, tensor<1x1x1x32xbf16>
    %107 = poot.mul %105, %8 : tensor<2x4x1x32xbf16>, tensor<1x1x1x32xbf16>
    %108 = poot.add %106, %107 : tensor<2x4x1x32xbf16>, tensor<2x4x1x32xbf16>
    %109 = poot.slice %98 {limit = array<i64: 2, 2, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x32xbf16>
    %110 = poot.slice %98 {limit = array<i64: 2, 2, 1, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x32xbf16>
    %111 = poot.neg %110 : tensor<2x2x1x16xbf16>
    %112 = poot.concat %111, %109 {axis = 3 : i64} : tensor<2x2x1x16xbf16>, tensor<2x2x1x16xbf16>
    %113 = poot.mul %98, %6 : tensor<2x2x1x32xbf16>, tensor<1x1x1x32xbf16>
    %114 = poot.mul %112, %8 : tensor<2x2x1x32xbf16>, tensor<1x1x1x32xbf16>
    %115 = poot.add %113, %114 : tensor<2x2x1x32xbf16>, tensor<2x2x1x32xbf16>
    %116 = poot.constant dense<0> : tensor<i32>
    %117 = poot.dynamic_update_slice %arg13[%116, %116, %arg1, %116], %115 : tensor<2x2x64x32xbf16>, tensor<2x2x1x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %118 = poot.dynamic_update_slice %arg14[%116, %116, %arg1, %116], %101 : tensor<2x2x64x32xbf16>, tensor<2x2x1x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %119 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %120 = poot.compare gt, %119, %0 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %121 = poot.constant dense<0xFF80> : tensor<bf16>
    %122 = poot.broadcast %121 {shape = array<i64: 1, 1, 1, 64>} : tensor<bf16>
    %123 = poot.constant dense<0.000000e+00> : tensor<bf16>
    %124 = poot.broadcast %123 {shape = array<i64: 1, 1, 1, 64>} : tensor<bf16>
    %125 = poot.select %120, %122, %124 : tensor<1x1x1x64xi1>, tensor<1x1x1x64xbf16>, tensor<1x1x1x64xbf16>
    %126 = poot.broadcast %125 {shape = array<i64: 2, 1, 1, 64>} : tensor<1x1x1x64xbf16>
    %127 = poot.reshape %117 : tensor<2x2x64x32xbf16> -> tensor<2x2x1x64x32xbf16>
    %128 = poot.broadcast %127 {shape = array<i64: 2, 2, 2, 64, 32>} : tensor<2x2x1x64x32xbf16>
    %129 = poot.reshape %128 : tensor<2x2x2x64x32xbf16> -> tensor<2x4x64x32xbf16>
    %130 = poot.reshape %118 : tensor<2x2x64x32xbf16> -> tensor<2x2x1x64x32xbf16>
    %131 = poot.broadcast %130 {shape = array<i64: 2, 2, 2, 64, 32>} : tensor<2x2x1x64x32xbf16>
    %132 = poot.reshape %131 : tensor<2x2x2x64x32xbf16> -> tensor<2x4x64x32xbf16>
    %133 = poot.transpose %129 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x32xbf16>
    %134 = poot.matmul %108, %133 : tensor<2x4x1x32xbf16>, tensor<2x4x32x64xbf16>
    %135 = poot.constant dense<1.767580e-01> : tensor<bf16>
    %136 = poot.broadcast %135 {shape = array<i64: 2, 4, 1, 64>} : tensor<bf16>
    %137 = poot.mul %134, %136 : tensor<2x4x1x64xbf16>, tensor<2x4x1x64xbf16>
    %138 = poot.add %137, %126 : tensor<2x4x1x64xbf16>, tensor<2x1x1x64xbf16>
    %139 = poot.convert %138 : tensor<2x4x1x64xbf16> -> tensor<2x4x1x64xf32>
    %140 = poot.reduce_max %139 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %141 = poot.sub %139, %140 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %142 = poot.exp %141 : tensor<2x4x1x64xf32>
    %143 = poot.reduce_sum %142 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %144 = poot.div %142, %143 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %145 = poot.convert %144 : tensor<2x4x1x64xf32> -> tensor<2x4x1x64xbf16>
    %146 = poot.matmul %145, %132 : tensor<2x4x1x64xbf16>, tensor<2x4x64x32xbf16>
    %147 = poot.transpose %146 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x32xbf16>
    %148 = poot.reshape %147 : tensor<2x1x4x32xbf16> -> tensor<2x1x128xbf16>
    %149 = poot.matmul %148, %arg15 : tensor<2x1x128xbf16>, tensor<128x128xbf16>
    %150 = poot.add %79, %149 : tensor<2x1x128xbf16>, tensor<2x1x128xbf16>
    return %150, %46, %47, %117, %118 : tensor<2x1x128xbf16>, tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>, tensor<2x2x64x32xbf16>
  }
}

