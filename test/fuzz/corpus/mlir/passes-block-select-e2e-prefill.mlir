module {
  func.func @deepseek_sparse_prefill_fixed(%arg0: tensor<2x16x128xf32> {poot.name = "x"}, %arg1: tensor<128xf32> {poot.name = "l0.attn_norm"}, %arg2: tensor<128x128xf32> {poot.name = "l0.wq"}, %arg3: tensor<128x64xf32> {poot.name = "l0.wk"}, %arg4: tensor<128x64xf32> {poot.name = "l0.wv"}, %arg5: tensor<128x32xf32> {poot.name = "l0.wiq"}, %arg6: tensor<128x16xf32> {poot.name = "l0.wik"}, %arg7: tensor<2x1x64x16xf32> {poot.name = "l0.index_cache", poot.state = "l0.index_cache"}, %arg8: tensor<2x2x64x32xf32> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, %arg9: tensor<2x2x64x32xf32> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}, %arg10: tensor<128x128xf32> {poot.name = "l0.wo"}) -> (tensor<2x16x128xf32> {poot.name = "y"}, tensor<2x1x64x16xf32> {poot.name = "l0.index_cache", poot.state = "l0.index_cache"}, tensor<2x2x64x32xf32> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, tensor<2x2x64x32xf32> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}) {
    %0 = poot.iota {dim = 2 : i64} : tensor<1x1x16x1xi32>
    %1 = poot.convert %0 : tensor<1x1x16x1xi32> -> tensor<1x1x16x1xf32>
    %2 = poot.constant dense<[[[[1.000000e+00, 0.562341332, 0.316227764, 0.177827939, 1.000000e-01, 0.0562341325, 0.0316227749, 0.0177827943, 0.00999999977, 0.00562341325, 0.00316227763, 0.00177827943, 1.000000e-03, 5.62341302E-4, 3.16227757E-4, 1.7782794E-4]]]]> : tensor<1x1x1x16xf32>
    %3 = poot.mul %1, %2 : tensor<1x1x16x1xf32>, tensor<1x1x1x16xf32>
    %4 = poot.concat %3, %3 {axis = 3 : i64} : tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>
    %5 = poot.cos %4 : tensor<1x1x16x32xf32>
    %6 = poot.sin %4 : tensor<1x1x16x32xf32>
    %7 = poot.mul %arg0, %arg0 : tensor<2x16x128xf32>, tensor<2x16x128xf32>
    %8 = poot.reduce_sum %7 {axis = 2 : i64, keepdim} : tensor<2x16x128xf32>
    %9 = poot.constant dense<7.812500e-03> : tensor<f32>
    %10 = poot.broadcast %9 {shape = array<i64: 2, 16, 1>} : tensor<f32>
    %11 = poot.mul %8, %10 : tensor<2x16x1xf32>, tensor<2x16x1xf32>
    %12 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %13 = poot.broadcast %12 {shape = array<i64: 2, 16, 1>} : tensor<f32>
    %14 = poot.add %11, %13 : tensor<2x16x1xf32>, tensor<2x16x1xf32>
    %15 = poot.rsqrt %14 : tensor<2x16x1xf32>
    %16 = poot.mul %arg0, %15 : tensor<2x16x128xf32>, tensor<2x16x1xf32>
    %17 = poot.mul %16, %arg1 : tensor<2x16x128xf32>, tensor<128xf32>
    %18 = poot.matmul %17, %arg2 : tensor<2x16x128xf32>, tensor<128x128xf32>
    %19 = poot.reshape %18 : tensor<2x16x128xf32> -> tensor<2x16x4x32xf32>
    %20 = poot.transpose %19 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x32xf32>
    %21 = poot.matmul %17, %arg3 : tensor<2x16x128xf32>, tensor<128x64xf32>
    %22 = poot.reshape %21 : tensor<2x16x64xf32> -> tensor<2x16x2x32xf32>
    %23 = poot.transpose %22 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x32xf32>
    %24 = poot.matmul %17, %arg4 : tensor<2x16x128xf32>, tensor<128x64xf32>
    %25 = poot.reshape %24 : tensor<2x16x64xf32> -> tensor<2x16x2x32xf32>
    %26 = poot.transpose %25 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x32xf32>
    %27 = poot.slice %20 {limit = array<i64: 2, 4, 16, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x16x32xf32>
    %28 = poot.slice %20 {limit = array<i64: 2, 4, 16, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x16x32xf32>
    %29 = poot.neg %28 : tensor<2x4x16x16xf32>
    %30 = poot.concat %29, %27 {axis = 3 : i64} : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
    %31 = poot.mul %20, %5 : tensor<2x4x16x32xf32>, tensor<1x1x16x32xf32>
    %32 = poot.mul %30, %6 : tensor<2x4x16x32xf32>, tensor<1x1x16x32xf32>
    %33 = poot.add %31, %32 : tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>
    %34 = poot.slice %23 {limit = array<i64: 2, 2, 16, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x16x32xf32>
    %35 = poot.slice %23 {limit = array<i64: 2, 2, 16, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x16x32xf32>
    %36 = poot.neg %35 : tensor<2x2x16x16xf32>
    %37 = poot.concat %36, %34 {axis = 3 : i64} : tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32>
    %38 = poot.mul %23, %5 : tensor<2x2x16x32xf32>, tensor<1x1x16x32xf32>
    %39 = poot.mul %37, %6 : tensor<2x2x16x32xf32>, tensor<1x1x16x32xf32>
    %40 = poot.add %38, %39 : tensor<2x2x16x32xf32>, tensor<2x2x16x32xf32>
    %41 = poot.matmul %17, %arg5 : tensor<2x16x128xf32>, tensor<128x32xf32>
    %42 = poot.reshape %41 : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
    %43 = poot.transpose %42 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x16xf32>
    %44 = poot.matmul %17, %arg6 : tensor<2x16x128xf32>, tensor<128x16xf32>
    %45 = poot.reshape %44 : tensor<2x16x16xf32> -> tensor<2x16x1x16xf32>
    %46 = poot.transpose %45 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x1x16xf32>
    %47 = poot.constant dense<0> : tensor<i32>
    %48 = poot.dynamic_update_slice %arg7[%47, %47, %47, %47], %46 : tensor<2x1x64x16xf32>, tensor<2x1x16x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %49 = poot.transpose %46 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x16x16xf32>
    %50 = poot.matmul %43, %49 : tensor<2x2x16x16xf32>, tensor<2x1x16x16xf32>
    %51 = poot.constant dense<0.000000e+00> : tensor<f32>
    %52 = poot.broadcast %51 {shape = array<i64: 2, 2, 16, 16>} : tensor<f32>
    %53 = poot.max %50, %52 : tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32>
    %54 = poot.reduce_sum %53 {axis = 1 : i64, keepdim} : tensor<2x2x16x16xf32>
    %55 = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
    %56 = poot.compare gt, %55, %0 : tensor<1x1x1x16xi32>, tensor<1x1x16x1xi32>
    %57 = poot.constant dense<0xFF800000> : tensor<f32>
    %58 = poot.broadcast %57 {shape = array<i64: 2, 1, 16, 16>} : tensor<f32>
    %59 = poot.select %56, %58, %54 : tensor<1x1x16x16xi1>, tensor<2x1x16x16xf32>, tensor<2x1x16x16xf32>
    %60 = poot.reshape %59 : tensor<2x1x16x16xf32> -> tensor<2x1x16x4x4xf32>
    %61 = poot.reduce_max %60 {axis = 4 : i64} : tensor<2x1x16x4x4xf32>
    %values, %indices = poot.topk %61 {k = 2 : i64} : tensor<2x1x16x4xf32>
    %62 = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
    %63 = poot.constant dense<4> : tensor<i32>
    %64 = poot.broadcast %63 {shape = array<i64: 1, 1, 1, 16>} : tensor<i32>
    %65 = poot.div %62, %64 : tensor<1x1x1x16xi32>, tensor<1x1x1x16xi32>
    %66 = poot.reshape %indices : tensor<2x1x16x2xi32> -> tensor<2x1x16x2x1xi32>
    %67 = poot.reshape %65 : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
    %68 = poot.compare eq, %66, %67 : tensor<2x1x16x2x1xi32>, tensor<1x1x1x1x16xi32>
    %69 = poot.convert %68 : tensor<2x1x16x2x16xi1> -> tensor<2x1x16x2x16xi32>
    %70 = poot.reduce_max %69 {axis = 3 : i64} : tensor<2x1x16x2x16xi32>
    %71 = poot.constant dense<0> : tensor<i32>
    %72 = poot.broadcast %71 {shape = array<i64: 2, 1, 16, 16>} : tensor<i32>
    %73 = poot.compare ne, %70, %72 : tensor<2x1x16x16xi32>, tensor<2x1x16x16xi32>
    %74 = poot.constant dense<4> : tensor<i32>
    %75 = poot.broadcast %74 {shape = array<i64: 1, 1, 16, 1>} : tensor<i32>
    %76 = poot.div %0, %75 : tensor<1x1x16x1xi32>, tensor<1x1x16x1xi32>
    %77 = poot.compare eq, %65, %76 : tensor<1x1x1x16xi32>, tensor<1x1x16x1xi32>
    %78 = poot.or %73, %77 : tensor<2x1x16x16xi1>, tensor<1x1x16x16xi1>
    %79 = poot.not %56 : tensor<1x1x16x16xi1>
    %80 = poot.and %78, %79 : tensor<2x1x16x16xi1>, tensor<1x1x16x16xi1>
    %81 = poot.constant dense<0.000000e+00> : tensor<f32>
    %82 = poot.broadcast %81 {shape = array<i64: 2, 1, 16, 16>} : tensor<f32>
    %83 = poot.constant dense<0xFF800000> : tensor<f32>
    %84 = poot.broadcast %83 {shape = array<i64: 2, 1, 16, 16>} : tensor<f32>
    %85 = poot.select %80, %82, %84 : tensor<2x1x16x16xi1>, tensor<2x1x16x16xf32>, tensor<2x1x16x16xf32>
    %86 = poot.constant dense<0> : tensor<i32>
    %87 = poot.dynamic_update_slice %arg8[%86, %86, %86, %86], %40 : tensor<2x2x64x32xf32>, tensor<2x2x16x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %88 = poot.constant dense<0> : tensor<i32>
    %89 = poot.dynamic_update_slice %arg9[%88, %88, %88, %88], %26 : tensor<2x2x64x32xf32>, tensor<2x2x16x32xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %90 = poot.reshape %40 : tensor<2x2x16x32xf32> -> tensor<2x2x1x16x32xf32>
    %91 = poot.broadcast %90 {shape = array<i64: 2, 2, 2, 16, 32>} : tensor<2x2x1x16x32xf32>
    %92 = poot.reshape %91 : tensor<2x2x2x16x32xf32> -> tensor<2x4x16x32xf32>
    %93 = poot.reshape %26 : tensor<2x2x16x32xf32> -> tensor<2x2x1x16x32xf32>
    %94 = poot.broadcast %93 {shape = array<i64: 2, 2, 2, 16, 32>} : tensor<2x2x1x16x32xf32>
    %95 = poot.reshape %94 : tensor<2x2x2x16x32xf32> -> tensor<2x4x16x32xf32>
    %96 = poot.transpose %92 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x16x32xf32>
    %97 = poot.matmul %33, %96 : tensor<2x4x16x32xf32>, tensor<2x4x32x16xf32>
    %98 = poot.constant dense<0.176776692> : tensor<f32>
    %99 = poot.broadcast %98 {shape = array<i64: 2, 4, 16, 16>} : tensor<f32>
    %100 = poot.mul %97, %99 : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
    %101 = poot.add %100, %85 : tensor<2x4x16x16xf32>, tensor<2x1x16x16xf32>
    %102 = poot.reduce_max %101 {axis = 3 : i64, keepdim} : tensor<2x4x16x16xf32>
    %103 = poot.sub %101, %102 : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>
    %104 = poot.exp %103 : tensor<2x4x16x16xf32>
    %105 = poot.reduce_sum %104 {axis = 3 : i64, keepdim} : tensor<2x4x16x16xf32>
    %106 = poot.div %104, %105 : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>
    %107 = poot.matmul %106, %95 : tensor<2x4x16x16xf32>, tensor<2x4x16x32xf32>
    %108 = poot.transpose %107 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x16x32xf32>
    %109 = poot.reshape %108 : tensor<2x16x4x32xf32> -> tensor<2x16x128xf32>
    %110 = poot.matmul %109, %arg10 : tensor<2x16x128xf32>, tensor<128x128xf32>
    %111 = poot.add %arg0, %110 : tensor<2x16x128xf32>, tensor<2x16x128xf32>
    return %111, %48, %87, %89 : tensor<2x16x128xf32>, tensor<2x1x64x16xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x32xf32>
  }
}
