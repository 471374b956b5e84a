module {
  func.func @sparse(%arg0: tensor<2x4x8x16xf32> {poot.name = "q"}, %arg1: tensor<2x2x32x16xf32> {poot.name = "k"}, %arg2: tensor<2x2x32x16xf32> {poot.name = "v"}, %arg3: tensor<2x2x8x8xf32> {poot.name = "index_q"}, %arg4: tensor<2x1x32x8xf32> {poot.name = "index_k"}, %arg5: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 25>, poot.slot = "pos"}) -> (tensor<2x4x8x16xf32> {poot.name = "out"}) {
    %0 = poot.reshape %arg5 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
    %2 = poot.add %0, %1 : tensor<1x1x1x1xi32>, tensor<1x1x8x1xi32>
    %3 = poot.transpose %arg4 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x32x8xf32>
    %4 = poot.matmul %arg3, %3 : tensor<2x2x8x8xf32>, tensor<2x1x8x32xf32>
    %5 = poot.constant dense<0.000000e+00> : tensor<f32>
    %6 = poot.broadcast %5 {shape = array<i64: 2, 2, 8, 32>} : tensor<f32>
    %7 = poot.max %4, %6 : tensor<2x2x8x32xf32>, tensor<2x2x8x32xf32>
    %8 = poot.reduce_sum %7 {axis = 1 : i64, keepdim} : tensor<2x2x8x32xf32>
    %9 = poot.iota {dim = 3 : i64} : tensor<1x1x1x32xi32>
    %10 = poot.compare gt, %9, %2 : tensor<1x1x1x32xi32>, tensor<1x1x8x1xi32>
    %11 = poot.constant dense<0xFF800000> : tensor<f32>
    %12 = poot.broadcast %11 {shape = array<i64: 2, 1, 8, 32>} : tensor<f32>
    %13 = poot.select %10, %12, %8 : tensor<1x1x8x32xi1>, tensor<2x1x8x32xf32>, tensor<2x1x8x32xf32>
    %14 = poot.reshape %13 : tensor<2x1x8x32xf32> -> tensor<2x1x8x8x4xf32>
    %15 = poot.reduce_max %14 {axis = 4 : i64} : tensor<2x1x8x8x4xf32>
    %values, %indices = poot.topk %15 {k = 2 : i64} : tensor<2x1x8x8xf32>
    %16 = poot.iota {dim = 3 : i64} : tensor<1x1x1x32xi32>
    %17 = poot.constant dense<4> : tensor<i32>
    %18 = poot.broadcast %17 {shape = array<i64: 1, 1, 1, 32>} : tensor<i32>
    %19 = poot.div %16, %18 : tensor<1x1x1x32xi32>, tensor<1x1x1x32xi32>
    %20 = poot.reshape %indices : tensor<2x1x8x2xi32> -> tensor<2x1x8x2x1xi32>
    %21 = poot.reshape %19 : tensor<1x1x1x32xi32> -> tensor<1x1x1x1x32xi32>
    %22 = poot.compare eq, %20, %21 : tensor<2x1x8x2x1xi32>, tensor<1x1x1x1x32xi32>
    %23 = poot.convert %22 : tensor<2x1x8x2x32xi1> -> tensor<2x1x8x2x32xi32>
    %24 = poot.reduce_max %23 {axis = 3 : i64} : tensor<2x1x8x2x32xi32>
    %25 = poot.constant dense<0> : tensor<i32>
    %26 = poot.broadcast %25 {shape = array<i64: 2, 1, 8, 32>} : tensor<i32>
    %27 = poot.compare ne, %24, %26 : tensor<2x1x8x32xi32>, tensor<2x1x8x32xi32>
    %28 = poot.constant dense<4> : tensor<i32>
    %29 = poot.broadcast %28 {shape = array<i64: 1, 1, 8, 1>} : tensor<i32>
    %30 = poot.div %2, %29 : tensor<1x1x8x1xi32>, tensor<1x1x8x1xi32>
    %31 = poot.compare eq, %19, %30 : tensor<1x1x1x32xi32>, tensor<1x1x8x1xi32>
    %32 = poot.or %27, %31 : tensor<2x1x8x32xi1>, tensor<1x1x8x32xi1>
    %33 = poot.not %10 : tensor<1x1x8x32xi1>
    %34 = poot.and %32, %33 : tensor<2x1x8x32xi1>, tensor<1x1x8x32xi1>
    %35 = poot.constant dense<0.000000e+00> : tensor<f32>
    %36 = poot.broadcast %35 {shape = array<i64: 2, 1, 8, 32>} : tensor<f32>
    %37 = poot.constant dense<0xFF800000> : tensor<f32>
    %38 = poot.broadcast %37 {shape = array<i64: 2, 1, 8, 32>} : tensor<f32>
    %39 = poot.select %34, %36, %38 : tensor<2x1x8x32xi1>, tensor<2x1x8x32xf32>, tensor<2x1x8x32xf32>
    %40 = poot.reshape %arg1 : tensor<2x2x32x16xf32> -> tensor<2x2x1x32x16xf32>
    %41 = poot.broadcast %40 {shape = array<i64: 2, 2, 2, 32, 16>} : tensor<2x2x1x32x16xf32>
    %42 = poot.reshape %41 : tensor<2x2x2x32x16xf32> -> tensor<2x4x32x16xf32>
    %43 = poot.reshape %arg2 : tensor<2x2x32x16xf32> -> tensor<2x2x1x32x16xf32>
    %44 = poot.broadcast %43 {shape = array<i64: 2, 2, 2, 32, 16>} : tensor<2x2x1x32x16xf32>
    %45 = poot.reshape %44 : tensor<2x2x2x32x16xf32> -> tensor<2x4x32x16xf32>
    %46 = poot.transpose %42 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x32x16xf32>
    %47 = poot.matmul %arg0, %46 : tensor<2x4x8x16xf32>, tensor<2x4x16x32xf32>
    %48 = poot.constant dense<2.500000e-01> : tensor<f32>
    %49 = poot.broadcast %48 {shape = array<i64: 2, 4, 8, 32>} : tensor<f32>
    %50 = poot.mul %47, %49 : tensor<2x4x8x32xf32>, tensor<2x4x8x32xf32>
    %51 = poot.add %50, %39 : tensor<2x4x8x32xf32>, tensor<2x1x8x32xf32>
    %52 = poot.reduce_max %51 {axis = 3 : i64, keepdim} : tensor<2x4x8x32xf32>
    %53 = poot.sub %51, %52 : tensor<2x4x8x32xf32>, tensor<2x4x8x1xf32>
    %54 = poot.exp %53 : tensor<2x4x8x32xf32>
    %55 = poot.reduce_sum %54 {axis = 3 : i64, keepdim} : tensor<2x4x8x32xf32>
    %56 = poot.div %54, %55 : tensor<2x4x8x32xf32>, tensor<2x4x8x1xf32>
    %57 = poot.matmul %56, %45 : tensor<2x4x8x32xf32>, tensor<2x4x32x16xf32>
    return %57 : tensor<2x4x8x16xf32>
  }
}
