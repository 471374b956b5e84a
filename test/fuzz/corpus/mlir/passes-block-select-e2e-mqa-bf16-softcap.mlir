module {
  func.func @sparse(%arg0: tensor<1x4x2x16xbf16> {poot.name = "q"}, %arg1: tensor<1x1x64x16xbf16> {poot.name = "k"}, %arg2: tensor<1x1x64x16xbf16> {poot.name = "v"}, %arg3: tensor<1x2x2x8xbf16> {poot.name = "index_q"}, %arg4: tensor<1x1x64x8xbf16> {poot.name = "index_k"}, %arg5: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 63>, poot.slot = "pos"}) -> (tensor<1x4x2x16xbf16> {poot.name = "out"}) {
    %0 = poot.reshape %arg5 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.iota {dim = 2 : i64} : tensor<1x1x2x1xi32>
    %2 = poot.add %0, %1 : tensor<1x1x1x1xi32>, tensor<1x1x2x1xi32>
    %3 = poot.transpose %arg4 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x64x8xbf16>
    %4 = poot.matmul %arg3, %3 : tensor<1x2x2x8xbf16>, tensor<1x1x8x64xbf16>
    %5 = poot.constant dense<0.000000e+00> : tensor<bf16>
    %6 = poot.broadcast %5 {shape = array<i64: 1, 2, 2, 64>} : tensor<bf16>
    %7 = poot.max %4, %6 : tensor<1x2x2x64xbf16>, tensor<1x2x2x64xbf16>
    %8 = poot.reduce_sum %7 {axis = 1 : i64, keepdim} : tensor<1x2x2x64xbf16>
    %9 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %10 = poot.compare gt, %9, %2 : tensor<1x1x1x64xi32>, tensor<1x1x2x1xi32>
    %11 = poot.constant dense<0xFF80> : tensor<bf16>
    %12 = poot.broadcast %11 {shape = array<i64: 1, 1, 2, 64>} : tensor<bf16>
    %13 = poot.select %10, %12, %8 : tensor<1x1x2x64xi1>, tensor<1x1x2x64xbf16>, tensor<1x1x2x64xbf16>
    %14 = poot.reshape %13 : tensor<1x1x2x64xbf16> -> tensor<1x1x2x8x8xbf16>
    %15 = poot.reduce_max %14 {axis = 4 : i64} : tensor<1x1x2x8x8xbf16>
    %values, %indices = poot.topk %15 {k = 3 : i64} : tensor<1x1x2x8xbf16>
    %16 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %17 = poot.constant dense<8> : tensor<i32>
    %18 = poot.broadcast %17 {shape = array<i64: 1, 1, 1, 64>} : tensor<i32>
    %19 = poot.div %16, %18 : tensor<1x1x1x64xi32>, tensor<1x1x1x64xi32>
    %20 = poot.reshape %indices : tensor<1x1x2x3xi32> -> tensor<1x1x2x3x1xi32>
    %21 = poot.reshape %19 : tensor<1x1x1x64xi32> -> tensor<1x1x1x1x64xi32>
    %22 = poot.compare eq, %20, %21 : tensor<1x1x2x3x1xi32>, tensor<1x1x1x1x64xi32>
    %23 = poot.convert %22 : tensor<1x1x2x3x64xi1> -> tensor<1x1x2x3x64xi32>
    %24 = poot.reduce_max %23 {axis = 3 : i64} : tensor<1x1x2x3x64xi32>
    %25 = poot.constant dense<0> : tensor<i32>
    %26 = poot.broadcast %25 {shape = array<i64: 1, 1, 2, 64>} : tensor<i32>
    %27 = poot.compare ne, %24, %26 : tensor<1x1x2x64xi32>, tensor<1x1x2x64xi32>
    %28 = poot.constant dense<8> : tensor<i32>
    %29 = poot.broadcast %28 {shape = array<i64: 1, 1, 2, 1>} : tensor<i32>
    %30 = poot.div %2, %29 : tensor<1x1x2x1xi32>, tensor<1x1x2x1xi32>
    %31 = poot.compare eq, %19, %30 : tensor<1x1x1x64xi32>, tensor<1x1x2x1xi32>
    %32 = poot.or %27, %31 : tensor<1x1x2x64xi1>, tensor<1x1x2x64xi1>
    %33 = poot.not %10 : tensor<1x1x2x64xi1>
    %34 = poot.and %32, %33 : tensor<1x1x2x64xi1>, tensor<1x1x2x64xi1>
    %35 = poot.constant dense<0.000000e+00> : tensor<bf16>
    %36 = poot.broadcast %35 {shape = array<i64: 1, 1, 2, 64>} : tensor<bf16>
    %37 = poot.constant dense<0xFF80> : tensor<bf16>
    %38 = poot.broadcast %37 {shape = array<i64: 1, 1, 2, 64>} : tensor<bf16>
    %39 = poot.select %34, %36, %38 : tensor<1x1x2x64xi1>, tensor<1x1x2x64xbf16>, tensor<1x1x2x64xbf16>
    %40 = poot.reshape %arg1 : tensor<1x1x64x16xbf16> -> tensor<1x1x1x64x16xbf16>
    %41 = poot.broadcast %40 {shape = array<i64: 1, 1, 4, 64, 16>} : tensor<1x1x1x64x16xbf16>
    %42 = poot.reshape %41 : tensor<1x1x4x64x16xbf16> -> tensor<1x4x64x16xbf16>
    %43 = poot.reshape %arg2 : tensor<1x1x64x16xbf16> -> tensor<1x1x1x64x16xbf16>
    %44 = poot.broadcast %43 {shape = array<i64: 1, 1, 4, 64, 16>} : tensor<1x1x1x64x16xbf16>
    %45 = poot.reshape %44 : tensor<1x1x4x64x16xbf16> -> tensor<1x4x64x16xbf16>
    %46 = poot.transpose %42 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x64x16xbf16>
    %47 = poot.matmul %arg0, %46 : tensor<1x4x2x16xbf16>, tensor<1x4x16x64xbf16>
    %48 = poot.constant dense<2.500000e-01> : tensor<bf16>
    %49 = poot.broadcast %48 {shape = array<i64: 1, 4, 2, 64>} : tensor<bf16>
    %50 = poot.mul %47, %49 : tensor<1x4x2x64xbf16>, tensor<1x4x2x64xbf16>
    %51 = poot.constant dense<2.000000e+01> : tensor<bf16>
    %52 = poot.broadcast %51 {shape = array<i64: 1, 4, 2, 64>} : tensor<bf16>
    %53 = poot.div %50, %52 : tensor<1x4x2x64xbf16>, tensor<1x4x2x64xbf16>
    %54 = poot.tanh %53 : tensor<1x4x2x64xbf16>
    %55 = poot.constant dense<2.000000e+01> : tensor<bf16>
    %56 = poot.broadcast %55 {shape = array<i64: 1, 4, 2, 64>} : tensor<bf16>
    %57 = poot.mul %54, %56 : tensor<1x4x2x64xbf16>, tensor<1x4x2x64xbf16>
    %58 = poot.add %57, %39 : tensor<1x4x2x64xbf16>, tensor<1x1x2x64xbf16>
    %59 = poot.convert %58 : tensor<1x4x2x64xbf16> -> tensor<1x4x2x64xf32>
    %60 = poot.reduce_max %59 {axis = 3 : i64, keepdim} : tensor<1x4x2x64xf32>
    %61 = poot.sub %59, %60 : tensor<1x4x2x64xf32>, tensor<1x4x2x1xf32>
    %62 = poot.exp %61 : tensor<1x4x2x64xf32>
    %63 = poot.reduce_sum %62 {axis = 3 : i64, keepdim} : tensor<1x4x2x64xf32>
    %64 = poot.div %62, %63 : tensor<1x4x2x64xf32>, tensor<1x4x2x1xf32>
    %65 = poot.convert %64 : tensor<1x4x2x64xf32> -> tensor<1x4x2x64xbf16>
    %66 = poot.matmul %65, %45 : tensor<1x4x2x64xbf16>, tensor<1x4x64x16xbf16>
    return %66 : tensor<1x4x2x16xbf16>
  }
}
