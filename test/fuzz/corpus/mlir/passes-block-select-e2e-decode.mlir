module {
  func.func @sparse(%arg0: tensor<1x4x1x16xf32> {poot.name = "q"}, %arg1: tensor<1x2x32x16xf32> {poot.name = "k"}, %arg2: tensor<1x2x32x16xf32> {poot.name = "v"}, %arg3: tensor<1x2x1x8xf32> {poot.name = "index_q"}, %arg4: tensor<1x1x32x8xf32> {poot.name = "index_k"}, %arg5: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 32>, poot.slot = "pos"}) -> (tensor<1x4x1x16xf32> {poot.name = "out"}) {
    %0 = poot.reshape %arg5 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.transpose %arg4 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x32x8xf32>
    %2 = poot.matmul %arg3, %1 : tensor<1x2x1x8xf32>, tensor<1x1x8x32xf32>
    %3 = poot.constant dense<0.000000e+00> : tensor<f32>
    %4 = poot.broadcast %3 {shape = array<i64: 1, 2, 1, 32>} : tensor<f32>
    %5 = poot.max %2, %4 : tensor<1x2x1x32xf32>, tensor<1x2x1x32xf32>
    %6 = poot.reduce_sum %5 {axis = 1 : i64, keepdim} : tensor<1x2x1x32xf32>
    %7 = poot.iota {dim = 3 : i64} : tensor<1x1x1x32xi32>
    %8 = poot.compare gt, %7, %0 : tensor<1x1x1x32xi32>, tensor<1x1x1x1xi32>
    %9 = poot.constant dense<0xFF800000> : tensor<f32>
    %10 = poot.broadcast %9 {shape = array<i64: 1, 1, 1, 32>} : tensor<f32>
    %11 = poot.select %8, %10, %6 : tensor<1x1x1x32xi1>, tensor<1x1x1x32xf32>, tensor<1x1x1x32xf32>
    %12 = poot.reshape %11 : tensor<1x1x1x32xf32> -> tensor<1x1x1x8x4xf32>
    %13 = poot.reduce_max %12 {axis = 4 : i64} : tensor<1x1x1x8x4xf32>
    %values, %indices = poot.topk %13 {k = 2 : i64} : tensor<1x1x1x8xf32>
    %14 = poot.iota {dim = 3 : i64} : tensor<1x1x1x32xi32>
    %15 = poot.constant dense<4> : tensor<i32>
    %16 = poot.broadcast %15 {shape = array<i64: 1, 1, 1, 32>} : tensor<i32>
    %17 = poot.div %14, %16 : tensor<1x1x1x32xi32>, tensor<1x1x1x32xi32>
    %18 = poot.reshape %indices : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
    %19 = poot.reshape %17 : tensor<1x1x1x32xi32> -> tensor<1x1x1x1x32xi32>
    %20 = poot.compare eq, %18, %19 : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x32xi32>
    %21 = poot.convert %20 : tensor<1x1x1x2x32xi1> -> tensor<1x1x1x2x32xi32>
    %22 = poot.reduce_max %21 {axis = 3 : i64} : tensor<1x1x1x2x32xi32>
    %23 = poot.constant dense<0> : tensor<i32>
    %24 = poot.broadcast %23 {shape = array<i64: 1, 1, 1, 32>} : tensor<i32>
    %25 = poot.compare ne, %22, %24 : tensor<1x1x1x32xi32>, tensor<1x1x1x32xi32>
    %26 = poot.constant dense<4> : tensor<i32>
    %27 = poot.broadcast %26 {shape = array<i64: 1, 1, 1, 1>} : tensor<i32>
    %28 = poot.div %0, %27 : tensor<1x1x1x1xi32>, tensor<1x1x1x1xi32>
    %29 = poot.compare eq, %17, %28 : tensor<1x1x1x32xi32>, tensor<1x1x1x1xi32>
    %30 = poot.or %25, %29 : tensor<1x1x1x32xi1>, tensor<1x1x1x32xi1>
    %31 = poot.not %8 : tensor<1x1x1x32xi1>
    %32 = poot.and %30, %31 : tensor<1x1x1x32xi1>, tensor<1x1x1x32xi1>
    %33 = poot.constant dense<0.000000e+00> : tensor<f32>
    %34 = poot.broadcast %33 {shape = array<i64: 1, 1, 1, 32>} : tensor<f32>
    %35 = poot.constant dense<0xFF800000> : tensor<f32>
    %36 = poot.broadcast %35 {shape = array<i64: 1, 1, 1, 32>} : tensor<f32>
    %37 = poot.select %32, %34, %36 : tensor<1x1x1x32xi1>, tensor<1x1x1x32xf32>, tensor<1x1x1x32xf32>
    %38 = poot.reshape %arg1 : tensor<1x2x32x16xf32> -> tensor<1x2x1x32x16xf32>
    %39 = poot.broadcast %38 {shape = array<i64: 1, 2, 2, 32, 16>} : tensor<1x2x1x32x16xf32>
    %40 = poot.reshape %39 : tensor<1x2x2x32x16xf32> -> tensor<1x4x32x16xf32>
    %41 = poot.reshape %arg2 : tensor<1x2x32x16xf32> -> tensor<1x2x1x32x16xf32>
    %42 = poot.broadcast %41 {shape = array<i64: 1, 2, 2, 32, 16>} : tensor<1x2x1x32x16xf32>
    %43 = poot.reshape %42 : tensor<1x2x2x32x16xf32> -> tensor<1x4x32x16xf32>
    %44 = poot.transpose %40 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x32x16xf32>
    %45 = poot.matmul %arg0, %44 : tensor<1x4x1x16xf32>, tensor<1x4x16x32xf32>
    %46 = poot.constant dense<2.500000e-01> : tensor<f32>
    %47 = poot.broadcast %46 {shape = array<i64: 1, 4, 1, 32>} : tensor<f32>
    %48 = poot.mul %45, %47 : tensor<1x4x1x32xf32>, tensor<1x4x1x32xf32>
    %49 = poot.add %48, %37 : tensor<1x4x1x32xf32>, tensor<1x1x1x32xf32>
    %50 = poot.reduce_max %49 {axis = 3 : i64, keepdim} : tensor<1x4x1x32xf32>
    %51 = poot.sub %49, %50 : tensor<1x4x1x32xf32>, tensor<1x4x1x1xf32>
    %52 = poot.exp %51 : tensor<1x4x1x32xf32>
    %53 = poot.reduce_sum %52 {axis = 3 : i64, keepdim} : tensor<1x4x1x32xf32>
    %54 = poot.div %52, %53 : tensor<1x4x1x32xf32>, tensor<1x4x1x1xf32>
    %55 = poot.matmul %54, %43 : tensor<1x4x1x32xf32>, tensor<1x4x32x16xf32>
    return %55 : tensor<1x4x1x16xf32>
  }
}
