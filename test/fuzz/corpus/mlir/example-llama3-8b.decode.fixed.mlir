module {
  func.func @llama3_8b_decode_fixed(%arg0: tensor<2x1x128xf32> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 64>, poot.slot = "pos"}, %arg2: tensor<128xf32> {poot.name = "l0.attn_norm"}, %arg3: tensor<128x128xf32> {poot.name = "l0.wq"}, %arg4: tensor<128x64xf32> {poot.name = "l0.wk"}, %arg5: tensor<128x64xf32> {poot.name = "l0.wv"}, %arg6: tensor<2x2x64x32xf32> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, %arg7: tensor<2x2x64x32xf32> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}, %arg8: tensor<128x128xf32> {poot.name = "l0.wo"}, %arg9: tensor<128xf32> {poot.name = "l1.attn_norm"}, %arg10: tensor<128x128xf32> {poot.name = "l1.wq"}, %arg11: tensor<128x64xf32> {poot.name = "l1.wk"}, %arg12: tensor<128x64xf32> {poot.name = "l1.wv"}, %arg13: tensor<2x2x64x32xf32> {poot.name = "l1.k_cache", poot.state = "l1.k_cache"}, %arg14: tensor<2x2x64x32xf32> {poot.name = "l1.v_cache", poot.state = "l1.v_cache"}, %arg15: tensor<128x128xf32> {poot.name = "l1.wo"}) -> (tensor<2x1x128xf32> {poot.name = "y"}, tensor<2x2x64x32xf32> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, tensor<2x2x64x32xf32> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}, tensor<2x2x64x32xf32> {poot.name = "l1.k_cache", poot.state = "l1.k_cache"}, tensor<2x2x64x32xf32> {poot.name = "l1.v_cache", poot.state = "l1.v_cache"}) {
    %0 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.convert %0 : tensor<1x1x1x1xi32> -> tensor<1x1x1x1xf32>
    %2 = poot.constant dense<[[[[1.000000e+00, 0.440366596, 0.193922743, 8.539710e-02, 0.0376060307, 0.0165604409, 0.00729266461, 0.00321144611, 0.00141421356, 6.22772437E-4, 2.74248188E-4, 1.20769735E-4, 5.31829573E-5, 2.342000e-05, 1.03133852E-5, 4.54167048E-6]]]]> : tensor<1x1x1x16xf32>
    %3 = poot.mul %1, %2 : tensor<1x1x1x1xf32>, tensor<1x1x1x16xf32>
    %4 = poot.concat %3, %3 {axis = 3 : i64} : tensor<1x1x1x16xf32>, tensor<1x1x1x16xf32>
    %5 = poot.cos %4 : tensor<1x1x1x32xf32>
    %6 = poot.sin %4 : tensor<1x1x1x32xf32>
    %7 = poot.mul %arg0, %arg0 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %8 = poot.reduce_sum %7 {axis = 2 : i64, keepdim} : tensor<2x1x128xf32>
    %9 = poot.constant dense<7.812500e-03> : tensor<f32>
    %10 = poot.broadcast %9 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %11 = poot.mul %8, %10 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %12 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %13 = poot.broadcast %12 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %14 = poot.add %11, %13 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %15 = poot.rsqrt %14 : tensor<2x1x1xf32>
    %16 = poot.mul %arg0, %15 : tensor<2x1x128xf32>, tensor<2x1x1xf32>
    %17 = poot.mul %16, %arg2 : tensor<2x1x128xf32>, tensor<128xf32>
    %18 = poot.matmul %17, %arg3 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %19 = poot.reshape %18 : tensor<2x1x128xf32> -> tensor<2x1x4x32xf32>
    %20 = poot.transpose %19 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xf32>
    %21 = poot.matmul %17, %arg4 : tensor<2x1x128xf32>, tensor<128x64xf32>
    %22 = poot.reshape %21 : tensor<2x1x64xf32> -> tensor<2x1x2x32xf32>
    %23 = poot.transpose %22 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x32xf32>
    %24 = poot.matmul %17, %arg5 : tensor<2x1x128xf32>, tensor<128x64xf32>
    %25 = poot.reshape %24 : tensor<2x1x64xf32> -> tensor<2x1x2x32xf32>
    %26 = poot.transpose %25 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x32xf32>
    %27 = poot.slice %20 {limit = array<i64: 2, 4, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x32xf32>
    %28 = poot.slice %20 {limit = array<i64: 2, 4, 1, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x32xf32>
    %29 = poot.neg %28 : tensor<2x4x1x16xf32>
    %30 = poot.concat %29, %27 {axis = 3 : i64} : tensor<2x4x1x16xf32>, tensor<2x4x1x16xf32>
    %31 = poot.mul %20, %5 : tensor<2x4x1x32xf32>, tensor<1x1x1x32xf32>
    %32 = poot.mul %30, %6 : tensor<2x4x1x32xf32>, tensor<1x1x1x32xf32>
    %33 = poot.add %31, %32 : tensor<2x4x1x32xf32>, tensor<2x4x1x32xf32>
    %34 = poot.slice %23 {limit = array<i64: 2, 2, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x32xf32>
    %35 = poot.slice %23 {limit = array<i64: 2, 2, 1, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x32xf32>
    %36 = poot.neg %35 : tensor<2x2x1x16xf32>
    %37 = poot.concat %36, %34 {axis = 3 : i64} : tensor<2x2x1x16xf32>, tensor<2x2x1x16xf32>
    %38 = poot.mul %23, %5 : tensor<2x2x1x32xf32>, tensor<1x1x1x32xf32>
    %39 = poot.mul %37, %6 : tensor<2x2x1x32xf32>, tensor<1x1x1x32xf32>
    %40 = poot.add %38, %39 : tensor<2x2x1x32xf32>, tensor<2x2x1x32xf32>
    %41 = poot.constant dense<0> : tensor<i32>
    %42 = poot.dynamic_update_slice %arg6[%41, %41, %arg1, %41], %40 : tensor<2x2x64x32xf32>, tensor<2x2x1x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %43 = poot.dynamic_update_slice %arg7[%41, %41, %arg1, %41], %26 : tensor<2x2x64x32xf32>, tensor<2x2x1x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %44 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %45 = poot.compare gt, %44, %0 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %46 = poot.constant dense<0xFF800000> : tensor<f32>
    %47 = poot.broadcast %46 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %48 = poot.constant dense<0.000000e+00> : tensor<f32>
    %49 = poot.broadcast %48 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %50 = poot.select %45, %47, %49 : tensor<1x1x1x64xi1>, tensor<1x1x1x64xf32>, tensor<1x1x1x64xf32>
    %51 = poot.broadcast %50 {shape = array<i64: 2, 1, 1, 64>} : tensor<1x1x1x64xf32>
    %52 = poot.reshape %42 : tensor<2x2x64x32xf32> -> tensor<2x2x1x64x32xf32>
    %53 = poot.broadcast %52 {shape = array<i64: 2, 2, 2, 64, 32>} : tensor<2x2x1x64x32xf32>
    %54 = poot.reshape %53 : tensor<2x2x2x64x32xf32> -> tensor<2x4x64x32xf32>
    %55 = poot.reshape %43 : tensor<2x2x64x32xf32> -> tensor<2x2x1x64x32xf32>
    %56 = poot.broadcast %55 {shape = array<i64: 2, 2, 2, 64, 32>} : tensor<2x2x1x64x32xf32>
    %57 = poot.reshape %56 : tensor<2x2x2x64x32xf32> -> tensor<2x4x64x32xf32>
    %58 = poot.transpose %54 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x32xf32>
    %59 = poot.matmul %33, %58 : tensor<2x4x1x32xf32>, tensor<2x4x32x64xf32>
    %60 = poot.constant dense<0.176776692> : tensor<f32>
    %61 = poot.broadcast %60 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %62 = poot.mul %59, %61 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %63 = poot.add %62, %51 : tensor<2x4x1x64xf32>, tensor<2x1x1x64xf32>
    %64 = poot.reduce_max %63 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %65 = poot.sub %63, %64 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %66 = poot.exp %65 : tensor<2x4x1x64xf32>
    %67 = poot.reduce_sum %66 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %68 = poot.div %66, %67 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %69 = poot.matmul %68, %57 : tensor<2x4x1x64xf32>, tensor<2x4x64x32xf32>
    %70 = poot.transpose %69 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x32xf32>
    %71 = poot.reshape %70 : tensor<2x1x4x32xf32> -> tensor<2x1x128xf32>
    %72 = poot.matmul %71, %arg8 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %73 = poot.add %arg0, %72 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %74 = poot.mul %73, %73 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %75 = poot.reduce_sum %74 {axis = 2 : i64, keepdim} : tensor<2x1x128xf32>
    %76 = poot.constant dense<7.812500e-03> : tensor<f32>
    %77 = poot.broadcast %76 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %78 = poot.mul %75, %77 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %79 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %80 = poot.broadcast %79 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %81 = poot.add %78, %80 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %82 = poot.rsqrt %81 : tensor<2x1x1xf32>
    %83 = poot.mul %73, %82 : tensor<2x1x128xf32>, tensor<2x1x1xf32>
    %84 = poot.mul %83, %arg9 : tensor<2x1x128xf32>, tensor<128xf32>
    %85 = poot.matmul %84, %arg10 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %86 = poot.reshape %85 : tensor<2x1x128xf32> -> tensor<2x1x4x32xf32>
    %87 = poot.transpose %86 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xf32>
    %88 = poot.matmul %84, %arg11 : tensor<2x1x128xf32>, tensor<128x64xf32>
    %89 = poot.reshape %88 : tensor<2x1x64xf32> -> tensor<2x1x2x32xf32>
    %90 = poot.transpose %89 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x32xf32>
    %91 = poot.matmul %84, %arg12 : tensor<2x1x128xf32>, tensor<128x64xf32>
    %92 = poot.reshape %91 : tensor<2x1x64xf32> -> tensor<2x1x2x32xf32>
    %93 = poot.transpose %92 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x32xf32>
    %94 = poot.slice %87 {limit = array<i64: 2, 4, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x32xf32>
    %95 = poot.slice %87 {limit = array<i64: 2, 4, 1, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x32xf32>
    %96 = poot.neg %95 : tensor<2x4x1x16xf32>
    %97 = poot.concat %96, %94 {axis = 3 : i64} : tensor<2x4x1x16xf32>, tensor<2x4x1x16xf32>
    %98 = poot.mul %87, %5 : tensor<2x4x1x32xf32>, tensor<1x1x1x32xf32>
    %99 = poot.mul %97, %6 : tensor<2x4x1x32xf32>, tensor<1x1x1x32xf32>
    %100 = poot.add %98, %99 : tensor<2x4x1x32xf32>, tensor<2x4x1x32xf32>
    %101 = poot.slice %90 {limit = array<i64: 2, 2, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x32xf32>
    %102 = poot.slice %90 {limit = array<i64: 2, 2, 1, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x32xf32>
    %103 = poot.neg %102 : tensor<2x2x1x16xf32>
    %104 = poot.concat %103, %101 {axis = 3 : i64} : tensor<2x2x1x16xf32>, tensor<2x2x1x16xf32>
    %105 = poot.mul %90, %5 : tensor<2x2x1x32xf32>, tensor<1x1x1x32xf32>
    %106 = poot.mul %104, %6 : tensor<2x2x1x32xf32>, tensor<1x1x1x32xf32>
    %107 = poot.add %105, %106 : tensor<2x2x1x32xf32>, tensor<2x2x1x32xf32>
    %108 = poot.constant dense<0> : tensor<i32>
    %109 = poot.dynamic_update_slice %arg13[%108, %108, %arg1, %108], %107 : tensor<2x2x64x32xf32>, tensor<2x2x1x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %110 = poot.dynamic_update_slice %arg14[%108, %108, %arg1, %108], %93 : tensor<2x2x64x32xf32>, tensor<2x2x1x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %111 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %112 = poot.compare gt, %111, %0 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %113 = poot.constant dense<0xFF800000> : tensor<f32>
    %114 = poot.broadcast %113 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %115 = poot.constant dense<0.000000e+00> : tensor<f32>
    %116 = poot.broadcast %115 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %117 = poot.select %112, %114, %116 : tensor<1x1x1x64xi1>, tensor<1x1x1x64xf32>, tensor<1x1x1x64xf32>
    %118 = poot.broadcast %117 {shape = array<i64: 2, 1, 1, 64>} : tensor<1x1x1x64xf32>
    %119 = poot.reshape %109 : tensor<2x2x64x32xf32> -> tensor<2x2x1x64x32xf32>
    %120 = poot.broadcast %119 {shape = array<i64: 2, 2, 2, 64, 32>} : tensor<2x2x1x64x32xf32>
    %121 = poot.reshape %120 : tensor<2x2x2x64x32xf32> -> tensor<2x4x64x32xf32>
    %122 = poot.reshape %110 : tensor<2x2x64x32xf32> -> tensor<2x2x1x64x32xf32>
    %123 = poot.broadcast %122 {shape = array<i64: 2, 2, 2, 64, 32>} : tensor<2x2x1x64x32xf32>
    %124 = poot.reshape %123 : tensor<2x2x2x64x32xf32> -> tensor<2x4x64x32xf32>
    %125 = poot.transpose %121 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x32xf32>
    %126 = poot.matmul %100, %125 : tensor<2x4x1x32xf32>, tensor<2x4x32x64xf32>
    %127 = poot.constant dense<0.176776692> : tensor<f32>
    %128 = poot.broadcast %127 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %129 = poot.mul %126, %128 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %130 = poot.add %129, %118 : tensor<2x4x1x64xf32>, tensor<2x1x1x64xf32>
    %131 = poot.reduce_max %130 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %132 = poot.sub %130, %131 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %133 = poot.exp %132 : tensor<2x4x1x64xf32>
    %134 = poot.reduce_sum %133 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %135 = poot.div %133, %134 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %136 = poot.matmul %135, %124 : tensor<2x4x1x64xf32>, tensor<2x4x64x32xf32>
    %137 = poot.transpose %136 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x32xf32>
    %138 = poot.reshape %137 : tensor<2x1x4x32xf32> -> tensor<2x1x128xf32>
    %139 = poot.matmul %138, %arg15 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %140 = poot.add %73, %139 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    return %140, %42, %43, %109, %110 : tensor<2x1x128xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>
  }
}

