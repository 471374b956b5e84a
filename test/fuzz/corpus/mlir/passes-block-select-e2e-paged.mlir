module {
  func.func @deepseek_sparse_decode_paged(%arg0: tensor<2x1x128xf32> {poot.name = "x"}, %arg1: tensor<2xi32> {poot.name = "pos", poot.range = array<i64: 0, 64>, poot.slot = "pos"}, %arg2: tensor<2xi32> {poot.name = "write_map", poot.range = array<i64: -1, 128>, poot.slot = "write_map"}, %arg3: tensor<2x64xi32> {poot.name = "slot_map", poot.range = array<i64: 0, 128>, poot.slot = "slot_map"}, %arg4: tensor<128xf32> {poot.name = "l0.attn_norm"}, %arg5: tensor<128x128xf32> {poot.name = "l0.wq"}, %arg6: tensor<128x64xf32> {poot.name = "l0.wk"}, %arg7: tensor<128x64xf32> {poot.name = "l0.wv"}, %arg8: tensor<128x32xf32> {poot.name = "l0.wiq"}, %arg9: tensor<128x16xf32> {poot.name = "l0.wik"}, %arg10: tensor<128x1x16xf32> {poot.name = "l0.index_cache", poot.state = "l0.index_cache"}, %arg11: tensor<128x2x32xf32> {poot.name = "l0.k_pool", poot.state = "l0.k_pool"}, %arg12: tensor<128x2x32xf32> {poot.name = "l0.v_pool", poot.state = "l0.v_pool"}, %arg13: tensor<128x128xf32> {poot.name = "l0.wo"}) -> (tensor<2x1x128xf32> {poot.name = "y"}, tensor<128x1x16xf32> {poot.name = "l0.index_cache", poot.state = "l0.index_cache"}, tensor<128x2x32xf32> {poot.name = "l0.k_pool", poot.state = "l0.k_pool"}, tensor<128x2x32xf32> {poot.name = "l0.v_pool", poot.state = "l0.v_pool"}) {
    %0 = poot.reshape %arg1 : tensor<2xi32> -> tensor<2x1x1x1xi32>
    %1 = poot.convert %0 : tensor<2x1x1x1xi32> -> tensor<2x1x1x1xf32>
    %2 = poot.constant dense<[[[[1.000000e+00, 0.562341332, 0.316227764, 0.177827939, 1.000000e-01, 0.0562341325, 0.0316227749, 0.0177827943, 0.00999999977, 0.00562341325, 0.00316227763, 0.00177827943, 1.000000e-03, 5.62341302E-4, 3.16227757E-4, 1.7782794E-4]]]]> : tensor<1x1x1x16xf32>
    %3 = poot.mul %1, %2 : tensor<2x1x1x1xf32>, tensor<1x1x1x16xf32>
    %4 = poot.concat %3, %3 {axis = 3 : i64} : tensor<2x1x1x16xf32>, tensor<2x1x1x16xf32>
    %5 = poot.cos %4 : tensor<2x1x1x32xf32>
    %6 = poot.sin %4 : tensor<2x1x1x32xf32>
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
    %17 = poot.mul %16, %arg4 : tensor<2x1x128xf32>, tensor<128xf32>
    %18 = poot.matmul %17, %arg5 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %19 = poot.reshape %18 : tensor<2x1x128xf32> -> tensor<2x1x4x32xf32>
    %20 = poot.transpose %19 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x32xf32>
    %21 = poot.matmul %17, %arg6 : tensor<2x1x128xf32>, tensor<128x64xf32>
    %22 = poot.reshape %21 : tensor<2x1x64xf32> -> tensor<2x1x2x32xf32>
    %23 = poot.transpose %22 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x32xf32>
    %24 = poot.matmul %17, %arg7 : tensor<2x1x128xf32>, tensor<128x64xf32>
    %25 = poot.reshape %24 : tensor<2x1x64xf32> -> tensor<2x1x2x32xf32>
    %26 = poot.transpose %25 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x32xf32>
    %27 = poot.slice %20 {limit = array<i64: 2, 4, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x32xf32>
    %28 = poot.slice %20 {limit = array<i64: 2, 4, 1, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x32xf32>
    %29 = poot.neg %28 : tensor<2x4x1x16xf32>
    %30 = poot.concat %29, %27 {axis = 3 : i64} : tensor<2x4x1x16xf32>, tensor<2x4x1x16xf32>
    %31 = poot.mul %20, %5 : tensor<2x4x1x32xf32>, tensor<2x1x1x32xf32>
    %32 = poot.mul %30, %6 : tensor<2x4x1x32xf32>, tensor<2x1x1x32xf32>
    %33 = poot.add %31, %32 : tensor<2x4x1x32xf32>, tensor<2x4x1x32xf32>
    %34 = poot.slice %23 {limit = array<i64: 2, 2, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x32xf32>
    %35 = poot.slice %23 {limit = array<i64: 2, 2, 1, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x32xf32>
    %36 = poot.neg %35 : tensor<2x2x1x16xf32>
    %37 = poot.concat %36, %34 {axis = 3 : i64} : tensor<2x2x1x16xf32>, tensor<2x2x1x16xf32>
    %38 = poot.mul %23, %5 : tensor<2x2x1x32xf32>, tensor<2x1x1x32xf32>
    %39 = poot.mul %37, %6 : tensor<2x2x1x32xf32>, tensor<2x1x1x32xf32>
    %40 = poot.add %38, %39 : tensor<2x2x1x32xf32>, tensor<2x2x1x32xf32>
    %41 = poot.matmul %17, %arg8 : tensor<2x1x128xf32>, tensor<128x32xf32>
    %42 = poot.reshape %41 : tensor<2x1x32xf32> -> tensor<2x1x2x16xf32>
    %43 = poot.transpose %42 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x16xf32>
    %44 = poot.matmul %17, %arg9 : tensor<2x1x128xf32>, tensor<128x16xf32>
    %45 = poot.reshape %44 : tensor<2x1x16xf32> -> tensor<2x1x1x16xf32>
    %46 = poot.transpose %45 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x1x16xf32>
    %47 = poot.transpose %46 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x1x16xf32>
    %48 = poot.reshape %47 : tensor<2x1x1x16xf32> -> tensor<2x1x16xf32>
    %49 = poot.scatter_update %arg10[%arg2], %48 : tensor<128x1x16xf32>, tensor<2xi32>, tensor<2x1x16xf32>
    %50 = poot.gather %49[%arg3] {axis = 0 : i64} : tensor<128x1x16xf32>, tensor<2x64xi32>
    %51 = poot.transpose %50 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x64x1x16xf32>
    %52 = poot.transpose %51 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x64x16xf32>
    %53 = poot.matmul %43, %52 : tensor<2x2x1x16xf32>, tensor<2x1x16x64xf32>
    %54 = poot.constant dense<0.000000e+00> : tensor<f32>
    %55 = poot.broadcast %54 {shape = array<i64: 2, 2, 1, 64>} : tensor<f32>
    %56 = poot.max %53, %55 : tensor<2x2x1x64xf32>, tensor<2x2x1x64xf32>
    %57 = poot.reduce_sum %56 {axis = 1 : i64, keepdim} : tensor<2x2x1x64xf32>
    %58 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %59 = poot.compare gt, %58, %0 : tensor<1x1x1x64xi32>, tensor<2x1x1x1xi32>
    %60 = poot.constant dense<0xFF800000> : tensor<f32>
    %61 = poot.broadcast %60 {shape = array<i64: 2, 1, 1, 64>} : tensor<f32>
    %62 = poot.select %59, %61, %57 : tensor<2x1x1x64xi1>, tensor<2x1x1x64xf32>, tensor<2x1x1x64xf32>
    %63 = poot.reshape %62 : tensor<2x1x1x64xf32> -> tensor<2x1x1x16x4xf32>
    %64 = poot.reduce_max %63 {axis = 4 : i64} : tensor<2x1x1x16x4xf32>
    %values, %indices = poot.topk %64 {k = 2 : i64} : tensor<2x1x1x16xf32>
    %65 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %66 = poot.constant dense<4> : tensor<i32>
    %67 = poot.broadcast %66 {shape = array<i64: 1, 1, 1, 64>} : tensor<i32>
    %68 = poot.div %65, %67 : tensor<1x1x1x64xi32>, tensor<1x1x1x64xi32>
    %69 = poot.reshape %indices : tensor<2x1x1x2xi32> -> tensor<2x1x1x2x1xi32>
    %70 = poot.reshape %68 : tensor<1x1x1x64xi32> -> tensor<1x1x1x1x64xi32>
    %71 = poot.compare eq, %69, %70 : tensor<2x1x1x2x1xi32>, tensor<1x1x1x1x64xi32>
    %72 = poot.convert %71 : tensor<2x1x1x2x64xi1> -> tensor<2x1x1x2x64xi32>
    %73 = poot.reduce_max %72 {axis = 3 : i64} : tensor<2x1x1x2x64xi32>
    %74 = poot.constant dense<0> : tensor<i32>
    %75 = poot.broadcast %74 {shape = array<i64: 2, 1, 1, 64>} : tensor<i32>
    %76 = poot.compare ne, %73, %75 : tensor<2x1x1x64xi32>, tensor<2x1x1x64xi32>
    %77 = poot.constant dense<4> : tensor<i32>
    %78 = poot.broadcast %77 {shape = array<i64: 2, 1, 1, 1>} : tensor<i32>
    %79 = poot.div %0, %78 : tensor<2x1x1x1xi32>, tensor<2x1x1x1xi32>
    %80 = poot.compare eq, %68, %79 : tensor<1x1x1x64xi32>, tensor<2x1x1x1xi32>
    %81 = poot.or %76, %80 : tensor<2x1x1x64xi1>, tensor<2x1x1x64xi1>
    %82 = poot.not %59 : tensor<2x1x1x64xi1>
    %83 = poot.and %81, %82 : tensor<2x1x1x64xi1>, tensor<2x1x1x64xi1>
    %84 = poot.constant dense<0.000000e+00> : tensor<f32>
    %85 = poot.broadcast %84 {shape = array<i64: 2, 1, 1, 64>} : tensor<f32>
    %86 = poot.constant dense<0xFF800000> : tensor<f32>
    %87 = poot.broadcast %86 {shape = array<i64: 2, 1, 1, 64>} : tensor<f32>
    %88 = poot.select %83, %85, %87 : tensor<2x1x1x64xi1>, tensor<2x1x1x64xf32>, tensor<2x1x1x64xf32>
    %89 = poot.transpose %40 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x1x32xf32>
    %90 = poot.reshape %89 : tensor<2x1x2x32xf32> -> tensor<2x2x32xf32>
    %91 = poot.scatter_update %arg11[%arg2], %90 : tensor<128x2x32xf32>, tensor<2xi32>, tensor<2x2x32xf32>
    %92 = poot.gather %91[%arg3] {axis = 0 : i64} : tensor<128x2x32xf32>, tensor<2x64xi32>
    %93 = poot.transpose %92 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x64x2x32xf32>
    %94 = poot.transpose %26 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x1x32xf32>
    %95 = poot.reshape %94 : tensor<2x1x2x32xf32> -> tensor<2x2x32xf32>
    %96 = poot.scatter_update %arg12[%arg2], %95 : tensor<128x2x32xf32>, tensor<2xi32>, tensor<2x2x32xf32>
    %97 = poot.gather %96[%arg3] {axis = 0 : i64} : tensor<128x2x32xf32>, tensor<2x64xi32>
    %98 = poot.transpose %97 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x64x2x32xf32>
    %99 = poot.reshape %93 : tensor<2x2x64x32xf32> -> tensor<2x2x1x64x32xf32>
    %100 = poot.broadcast %99 {shape = array<i64: 2, 2, 2, 64, 32>} : tensor<2x2x1x64x32xf32>
    %101 = poot.reshape %100 : tensor<2x2x2x64x32xf32> -> tensor<2x4x64x32xf32>
    %102 = poot.reshape %98 : tensor<2x2x64x32xf32> -> tensor<2x2x1x64x32xf32>
    %103 = poot.broadcast %102 {shape = array<i64: 2, 2, 2, 64, 32>} : tensor<2x2x1x64x32xf32>
    %104 = poot.reshape %103 : tensor<2x2x2x64x32xf32> -> tensor<2x4x64x32xf32>
    %105 = poot.transpose %101 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x32xf32>
    %106 = poot.matmul %33, %105 : tensor<2x4x1x32xf32>, tensor<2x4x32x64xf32>
    %107 = poot.constant dense<0.176776692> : tensor<f32>
    %108 = poot.broadcast %107 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %109 = poot.mul %106, %108 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %110 = poot.add %109, %88 : tensor<2x4x1x64xf32>, tensor<2x1x1x64xf32>
    %111 = poot.reduce_max %110 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %112 = poot.sub %110, %111 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %113 = poot.exp %112 : tensor<2x4x1x64xf32>
    %114 = poot.reduce_sum %113 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %115 = poot.div %113, %114 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %116 = poot.matmul %115, %104 : tensor<2x4x1x64xf32>, tensor<2x4x64x32xf32>
    %117 = poot.transpose %116 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x32xf32>
    %118 = poot.reshape %117 : tensor<2x1x4x32xf32> -> tensor<2x1x128xf32>
    %119 = poot.matmul %118, %arg13 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %120 = poot.add %arg0, %119 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    return %120, %49, %91, %96 : tensor<2x1x128xf32>, tensor<128x1x16xf32>, tensor<128x2x32xf32>, tensor<128x2x32xf32>
  }
}
