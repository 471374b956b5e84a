module {
  func.func @bloom_decode_fixed(%arg0: tensor<2x1x128xf32> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 64>, poot.slot = "pos"}, %arg2: tensor<128xf32> {poot.name = "l0.attn_norm"}, %arg3: tensor<128x128xf32> {poot.name = "l0.wq"}, %arg4: tensor<128x128xf32> {poot.name = "l0.wk"}, %arg5: tensor<128x128xf32> {poot.name = "l0.wv"}, %arg6: tensor<2x4x64x32xf32> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, %arg7: tensor<2x4x64x32xf32> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}, %arg8: tensor<128x128xf32> {poot.name = "l0.wo"}, %arg9: tensor<128xf32> {poot.name = "l1.attn_norm"}, %arg10: tensor<128x128xf32> {poot.name = "l1.wq"}, %arg11: tensor<128x128xf32> {poot.name = "l1.wk"}, %arg12: tensor<128x128xf32> {poot.name = "l1.wv"}, %arg13: tensor<2x4x64x32xf32> {poot.name = "l1.k_cache", poot.state = "l1.k_cache"}, %arg14: tensor<2x4x64x32xf32> {poot.name = "l1.v_cache", poot.state = "l1.v_cache"}, %arg15: tensor<128x128xf32> {poot.name = "l1.wo"}) -> (tensor<2x1x128xf32> {poot.name = "y"}, tensor<2x4x64x32xf32> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, tensor<2x4x64x32xf32> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}, tensor<2x4x64x32xf32> {poot.name = "l1.k_cache", poot.state = "l1.k_cache"}, tensor<2x4x64x32xf32> {poot.name = "l1.v_cache", poot.state = "l1.v_cache"}) {
    %0 = poot.mul %arg0, %arg0 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %1 = poot.reduce_sum %0 {axis = 2 : i64, keepdim} : tensor<2x1x128xf32>
    %2 = poot.constant dense<7.812500e-03> : tensor<f32>
    %3 = poot.broadcast %2 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %4 = poot.mul %1, %3 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %5 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %6 = poot.broadcast %5 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %7 = poot.add %4, %6 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %8 = poot.rsqrt %7 : tensor<2x1x1xf32>
    %9 = poot.mul %arg0, %8 : tensor<2x1x128xf32>, tensor<2x1x1xf32>
    %10 = poot.mul %9, %arg2 : tensor<2x1x128xf32>, tensor<128xf32>
    %11 = poot.matmul %10, %arg3 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %12 = poot.reshape %11 : tensor<2x1x128xf32> -> tensor<2x1x4x32xf32>
    %13 = poot.transpose %12 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xf32>
    %14 = poot.matmul %10, %arg4 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %15 = poot.reshape %14 : tensor<2x1x128xf32> -> tensor<2x1x4x32xf32>
    %16 = poot.transpose %15 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xf32>
    %17 = poot.matmul %10, %arg5 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %18 = poot.reshape %17 : tensor<2x1x128xf32> -> tensor<2x1x4x32xf32>
    %19 = poot.transpose %18 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xf32>
    %20 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %21 = poot.constant dense<0> : tensor<i32>
    %22 = poot.dynamic_update_slice %arg6[%21, %21, %arg1, %21], %16 : tensor<2x4x64x32xf32>, tensor<2x4x1x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %23 = poot.dynamic_update_slice %arg7[%21, %21, %arg1, %21], %19 : tensor<2x4x64x32xf32>, tensor<2x4x1x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %24 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %25 = poot.compare gt, %24, %20 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %26 = poot.constant dense<0xFF800000> : tensor<f32>
    %27 = poot.broadcast %26 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %28 = poot.constant dense<0.000000e+00> : tensor<f32>
    %29 = poot.broadcast %28 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %30 = poot.select %25, %27, %29 : tensor<1x1x1x64xi1>, tensor<1x1x1x64xf32>, tensor<1x1x1x64xf32>
    %31 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %32 = poot.sub %31, %20 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %33 = poot.convert %32 : tensor<1x1x1x64xi32> -> tensor<1x1x1x64xf32>
    %34 = poot.constant dense<[[[[2.500000e-01]], [[6.250000e-02]], [[1.562500e-02]], [[3.906250e-03]]]]> : tensor<1x4x1x1xf32>
    %35 = poot.mul %33, %34 : tensor<1x1x1x64xf32>, tensor<1x4x1x1xf32>
    %36 = poot.add %30, %35 : tensor<1x1x1x64xf32>, tensor<1x4x1x64xf32>
    %37 = poot.broadcast %36 {shape = array<i64: 2, 4, 1, 64>} : tensor<1x4x1x64xf32>
    %38 = poot.transpose %22 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x32xf32>
    %39 = poot.matmul %13, %38 : tensor<2x4x1x32xf32>, tensor<2x4x32x64xf32>
    %40 = poot.constant dense<0.176776692> : tensor<f32>
    %41 = poot.broadcast %40 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %42 = poot.mul %39, %41 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %43 = poot.add %42, %37 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %44 = poot.reduce_max %43 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %45 = poot.sub %43, %44 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %46 = poot.exp %45 : tensor<2x4x1x64xf32>
    %47 = poot.reduce_sum %46 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %48 = poot.div %46, %47 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %49 = poot.matmul %48, %23 : tensor<2x4x1x64xf32>, tensor<2x4x64x32xf32>
    %50 = poot.transpose %49 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x32xf32>
    %51 = poot.reshape %50 : tensor<2x1x4x32xf32> -> tensor<2x1x128xf32>
    %52 = poot.matmul %51, %arg8 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %53 = poot.add %arg0, %52 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %54 = poot.mul %53, %53 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %55 = poot.reduce_sum %54 {axis = 2 : i64, keepdim} : tensor<2x1x128xf32>
    %56 = poot.constant dense<7.812500e-03> : tensor<f32>
    %57 = poot.broadcast %56 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %58 = poot.mul %55, %57 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %59 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %60 = poot.broadcast %59 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %61 = poot.add %58, %60 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %62 = poot.rsqrt %61 : tensor<2x1x1xf32>
    %63 = poot.mul %53, %62 : tensor<2x1x128xf32>, tensor<2x1x1xf32>
    %64 = poot.mul %63, %arg9 : tensor<2x1x128xf32>, tensor<128xf32>
    %65 = poot.matmul %64, %arg10 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %66 = poot.reshape %65 : tensor<2x1x128xf32> -> tensor<2x1x4x32xf32>
    %67 = poot.transpose %66 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xf32>
    %68 = poot.matmul %64, %arg11 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %69 = poot.reshape %68 : tensor<2x1x128xf32> -> tensor<2x1x4x32xf32>
    %70 = poot.transpose %69 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xf32>
    %71 = poot.matmul %64, %arg12 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %72 = poot.reshape %71 : tensor<2x1x128xf32> -> tensor<2x1x4x32xf32>
    %73 = poot.transpose %72 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xf32>
    %74 = poot.constant dense<0> : tensor<i32>
    %75 = poot.dynamic_update_slice %arg13[%74, %74, %arg1, %74], %70 : tensor<2x4x64x32xf32>, tensor<2x4x1x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %76 = poot.dynamic_update_slice %arg14[%74, %74, %arg1, %74], %73 : tensor<2x4x64x32xf32>, tensor<2x4x1x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %77 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %78 = poot.compare gt, %77, %20 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %79 = poot.constant dense<0xFF800000> : tensor<f32>
    %80 = poot.broadcast %79 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %81 = poot.constant dense<0.000000e+00> : tensor<f32>
    %82 = poot.broadcast %81 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %83 = poot.select %78, %80, %82 : tensor<1x1x1x64xi1>, tensor<1x1x1x64xf32>, tensor<1x1x1x64xf32>
    %84 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %85 = poot.sub %84, %20 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %86 = poot.convert %85 : tensor<1x1x1x64xi32> -> tensor<1x1x1x64xf32>
    %87 = poot.constant dense<[[[[2.500000e-01]], [[6.250000e-02]], [[1.562500e-02]], [[3.906250e-03]]]]> : tensor<1x4x1x1xf32>
    %88 = poot.mul %86, %87 : tensor<1x1x1x64xf32>, tensor<1x4x1x1xf32>
    %89 = poot.add %83, %88 : tensor<1x1x1x64xf32>, tensor<1x4x1x64xf32>
    %90 = poot.broadcast %89 {shape = array<i64: 2, 4, 1, 64>} : tensor<1x4x1x64xf32>
    %91 = poot.transpose %75 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x32xf32>
    %92 = poot.matmul %67, %91 : tensor<2x4x1x32xf32>, tensor<2x4x32x64xf32>
    %93 = poot.constant dense<0.176776692> : tensor<f32>
    %94 = poot.broadcast %93 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %95 = poot.mul %92, %94 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %96 = poot.add %95, %90 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %97 = poot.reduce_max %96 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %98 = poot.sub %96, %97 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %99 = poot.exp %98 : tensor<2x4x1x64xf32>
    %100 = poot.reduce_sum %99 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %101 = poot.div %99, %100 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %102 = poot.matmul %101, %76 : tensor<2x4x1x64xf32>, tensor<2x4x64x32xf32>
    %103 = poot.transpose %102 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x32xf32>
    %104 = poot.reshape %103 : tensor<2x1x4x32xf32> -> tensor<2x1x128xf32>
    %105 = poot.matmul %104, %arg15 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %106 = poot.add %53, %105 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    return %106, %22, %23, %75, %76 : tensor<2x1x128xf32>, tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>, tensor<2x4x64x32xf32>
  }
}

