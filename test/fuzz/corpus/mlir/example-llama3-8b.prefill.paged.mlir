module {
  func.func @llama3_8b_prefill_paged(%arg0: tensor<2x16x128xf32> {poot.name = "x"}, %arg1: tensor<32xi32> {poot.name = "write_map", poot.range = array<i64: -1, 128>, poot.slot = "write_map"}, %arg2: tensor<128xf32> {poot.name = "l0.attn_norm"}, %arg3: tensor<128x128xf32> {poot.name = "l0.wq"}, %arg4: tensor<128x64xf32> {poot.name = "l0.wk"}, %arg5: tensor<128x64xf32> {poot.name = "l0.wv"}, %arg6: tensor<128x2x32xf32> {poot.name = "l0.k_pool", poot.state = "l0.k_pool"}, %arg7: tensor<128x2x32xf32> {poot.name = "l0.v_pool", poot.state = "l0.v_pool"}, %arg8: tensor<128x128xf32> {poot.name = "l0.wo"}, %arg9: tensor<128xf32> {poot.name = "l1.attn_norm"}, %arg10: tensor<128x128xf32> {poot.name = "l1.wq"}, %arg11: tensor<128x64xf32> {poot.name = "l1.wk"}, %arg12: tensor<128x64xf32> {poot.name = "l1.wv"}, %arg13: tensor<128x2x32xf32> {poot.name = "l1.k_pool", poot.state = "l1.k_pool"}, %arg14: tensor<128x2x32xf32> {poot.name = "l1.v_pool", poot.state = "l1.v_pool"}, %arg15: tensor<128x128xf32> {poot.name = "l1.wo"}) -> (tensor<2x16x128xf32> {poot.name = "y"}, tensor<128x2x32xf32> {poot.name = "l0.k_pool", poot.state = "l0.k_pool"}, tensor<128x2x32xf32> {poot.name = "l0.v_pool", poot.state = "l0.v_pool"}, tensor<128x2x32xf32> {poot.name = "l1.k_pool", poot.state = "l1.k_pool"}, tensor<128x2x32xf32> {poot.name = "l1.v_pool", poot.state = "l1.v_pool"}) {
    %0 = poot.iota {dim = 2 : i64} : tensor<1x1x16x1xi32>
    %1 = poot.convert %0 : tensor<1x1x16x1xi32> -> tensor<1x1x16x1xf32>
    %2 = poot.constant dense<[[[[1.000000e+00, 0.440366596, 0.193922743, 8.539710e-02, 0.0376060307, 0.0165604409, 0.00729266461, 0.00321144611, 0.00141421356, 6.22772437E-4, 2.74248188E-4, 1.20769735E-4, 5.31829573E-5, 2.342000e-05, 1.03133852E-5, 4.54167048E-6]]]]> : tensor<1x1x1x16xf32>
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
    %17 = poot.mul %16, %arg2 : tensor<2x16x128xf32>, tensor<128xf32>
    %18 = poot.matmul %17, %arg3 : tensor<2x16x128xf32>, tensor<128x128xf32>
    %19 = poot.reshape %18 : tensor<2x16x128xf32> -> tensor<2x16x4x32xf32>
    %20 = poot.transpose %19 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x32xf32>
    %21 = poot.matmul %17, %arg4 : tensor<2x16x128xf32>, tensor<128x64xf32>
    %22 = poot.reshape %21 : tensor<2x16x64xf32> -> tensor<2x16x2x32xf32>
    %23 = poot.transpose %22 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x32xf32>
    %24 = poot.matmul %17, %arg5 : tensor<2x16x128xf32>, tensor<128x64xf32>
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
    %41 = poot.transpose %40 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x32xf32>
    %42 = poot.reshape %41 : tensor<2x16x2x32xf32> -> tensor<32x2x32xf32>
    %43 = poot.scatter_update %arg6[%arg1], %42 : tensor<128x2x32xf32>, tensor<32xi32>, tensor<32x2x32xf32>
    %44 = poot.transpose %26 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x32xf32>
    %45 = poot.reshape %44 : tensor<2x16x2x32xf32> -> tensor<32x2x32xf32>
    %46 = poot.scatter_update %arg7[%arg1], %45 : tensor<128x2x32xf32>, tensor<32xi32>, tensor<32x2x32xf32>
    %47 = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
    %48 = poot.compare gt, %47, %0 : tensor<1x1x1x16xi32>, tensor<1x1x16x1xi32>
    %49 = poot.constant dense<0xFF800000> : tensor<f32>
    %50 = poot.broadcast %49 {shape = array<i64: 1, 1, 16, 16>} : tensor<f32>
    %51 = poot.constant dense<0.000000e+00> : tensor<f32>
    %52 = poot.broadcast %51 {shape = array<i64: 1, 1, 16, 16>} : tensor<f32>
    %53 = poot.select %48, %50, %52 : tensor<1x1x16x16xi1>, tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>
    %54 = poot.broadcast %53 {shape = array<i64: 2, 1, 16, 16>} : tensor<1x1x16x16xf32>
    %55 = poot.reshape %40 : tensor<2x2x16x32xf32> -> tensor<2x2x1x16x32xf32>
    %56 = poot.broadcast %55 {shape = array<i64: 2, 2, 2, 16, 32>} : tensor<2x2x1x16x32xf32>
    %57 = poot.reshape %56 : tensor<2x2x2x16x32xf32> -> tensor<2x4x16x32xf32>
    %58 = poot.reshape %26 : tensor<2x2x16x32xf32> -> tensor<2x2x1x16x32xf32>
    %59 = poot.broadcast %58 {shape = array<i64: 2, 2, 2, 16, 32>} : tensor<2x2x1x16x32xf32>
    %60 = poot.reshape %59 : tensor<2x2x2x16x32xf32> -> tensor<2x4x16x32xf32>
    %61 = poot.transpose %57 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x16x32xf32>
    %62 = poot.matmul %33, %61 : tensor<2x4x16x32xf32>, tensor<2x4x32x16xf32>
    %63 = poot.constant dense<0.176776692> : tensor<f32>
    %64 = poot.broadcast %63 {shape = array<i64: 2, 4, 16, 16>} : tensor<f32>
    %65 = poot.mul %62, %64 : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
    %66 = poot.add %65, %54 : tensor<2x4x16x16xf32>, tensor<2x1x16x16xf32>
    %67 = poot.reduce_max %66 {axis = 3 : i64, keepdim} : tensor<2x4x16x16xf32>
    %68 = poot.sub %66, %67 : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>
    %69 = poot.exp %68 : tensor<2x4x16x16xf32>
    %70 = poot.reduce_sum %69 {axis = 3 : i64, keepdim} : tensor<2x4x16x16xf32>
    %71 = poot.div %69, %70 : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>
    %72 = poot.matmul %71, %60 : tensor<2x4x16x16xf32>, tensor<2x4x16x32xf32>
    %73 = poot.transpose %72 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x16x32xf32>
    %74 = poot.reshape %73 : tensor<2x16x4x32xf32> -> tensor<2x16x128xf32>
    %75 = poot.matmul %74, %arg8 : tensor<2x16x128xf32>, tensor<128x128xf32>
    %76 = poot.add %arg0, %75 : tensor<2x16x128xf32>, tensor<2x16x128xf32>
    %77 = poot.mul %76, %76 : tensor<2x16x128xf32>, tensor<2x16x128xf32>
    %78 = poot.reduce_sum %77 {axis = 2 : i64, keepdim} : tensor<2x16x128xf32>
    %79 = poot.constant dense<7.812500e-03> : tensor<f32>
    %80 = poot.broadcast %79 {shape = array<i64: 2, 16, 1>} : tensor<f32>
    %81 = poot.mul %78, %80 : tensor<2x16x1xf32>, tensor<2x16x1xf32>
    %82 = poot.constant dense<9.99999974E-6> : tensor<f32>
    %83 = poot.broadcast %82 {shape = array<i64: 2, 16, 1>} : tensor<f32>
    %84 = poot.add %81, %83 : tensor<2x16x1xf32>, tensor<2x16x1xf32>
    %85 = poot.rsqrt %84 : tensor<2x16x1xf32>
    %86 = poot.mul %76, %85 : tensor<2x16x128xf32>, tensor<2x16x1xf32>
    %87 = poot.mul %86, %arg9 : tensor<2x16x128xf32>, tensor<128xf32>
    %88 = poot.matmul %87, %arg10 : tensor<2x16x128xf32>, tensor<128x128xf32>
    %89 = poot.reshape %88 : tensor<2x16x128xf32> -> tensor<2x16x4x32xf32>
    %90 = poot.transpose %89 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x32xf32>
    %91 = poot.matmul %87, %arg11 : tensor<2x16x128xf32>, tensor<128x64xf32>
    %92 = poot.reshape %91 : tensor<2x16x64xf32> -> tensor<2x16x2x32xf32>
    %93 = poot.transpose %92 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x32xf32>
    %94 = poot.matmul %87, %arg12 : tensor<2x16x128xf32>, tensor<128x64xf32>
    %95 = poot.reshape %94 : tensor<2x16x64xf32> -> tensor<2x16x2x32xf32>
    %96 = poot.transpose %95 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x32xf32>
    %97 = poot.slice %90 {limit = array<i64: 2, 4, 16, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x16x32xf32>
    %98 = poot.slice %90 {limit = array<i64: 2, 4, 16, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x16x32xf32>
    %99 = poot.neg %98 : tensor<2x4x16x16xf32>
    %100 = poot.concat %99, %97 {axis = 3 : i64} : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
    %101 = poot.mul %90, %5 : tensor<2x4x16x32xf32>, tensor<1x1x16x32xf32>
    %102 = poot.mul %100, %6 : tensor<2x4x16x32xf32>, tensor<1x1x16x32xf32>
    %103 = poot.add %101, %102 : tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>
    %104 = poot.slice %93 {limit = array<i64: 2, 2, 16, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x16x32xf32>
    %105 = poot.slice %93 {limit = array<i64: 2, 2, 16, 32>, start = array<i64: 0, 0, 0, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x16x32xf32>
    %106 = poot.neg %105 : tensor<2x2x16x16xf32>
    %107 = poot.concat %106, %104 {axis = 3 : i64} : tensor<2x2x16x16xf32>, tensor<2x2x16x16xf32>
    %108 = poot.mul %93, %5 : tensor<2x2x16x32xf32>, tensor<1x1x16x32xf32>
    %109 = poot.mul %107, %6 : tensor<2x2x16x32xf32>, tensor<1x1x16x32xf32>
    %110 = poot.add %108, %109 : tensor<2x2x16x32xf32>, tensor<2x2x16x32xf32>
    %111 = poot.transpose %110 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x32xf32>
    %112 = poot.reshape %111 : tensor<2x16x2x32xf32> -> tensor<32x2x32xf32>
    %113 = poot.scatter_update %arg13[%arg1], %112 : tensor<128x2x32xf32>, tensor<32xi32>, tensor<32x2x32xf32>
    %114 = poot.transpose %96 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x32xf32>
    %115 = poot.reshape %114 : tensor<2x16x2x32xf32> -> tensor<32x2x32xf32>
    %116 = poot.scatter_update %arg14[%arg1], %115 : tensor<128x2x32xf32>, tensor<32xi32>, tensor<32x2x32xf32>
    %117 = poot.reshape %110 : tensor<2x2x16x32xf32> -> tensor<2x2x1x16x32xf32>
    %118 = poot.broadcast %117 {shape = array<i64: 2, 2, 2, 16, 32>} : tensor<2x2x1x16x32xf32>
    %119 = poot.reshape %118 : tensor<2x2x2x16x32xf32> -> tensor<2x4x16x32xf32>
    %120 = poot.reshape %96 : tensor<2x2x16x32xf32> -> tensor<2x2x1x16x32xf32>
    %121 = poot.broadcast %120 {shape = array<i64: 2, 2, 2, 16, 32>} : tensor<2x2x1x16x32xf32>
    %122 = poot.reshape %121 : tensor<2x2x2x16x32xf32> -> tensor<2x4x16x32xf32>
    %123 = poot.transpose %119 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x16x32xf32>
    %124 = poot.matmul %103, %123 : tensor<2x4x16x32xf32>, tensor<2x4x32x16xf32>
    %125 = poot.constant dense<0.176776692> : tensor<f32>
    %126 = poot.broadcast %125 {shape = array<i64: 2, 4, 16, 16>} : tensor<f32>
    %127 = poot.mul %124, %126 : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>
    %128 = poot.add %127, %54 : tensor<2x4x16x16xf32>, tensor<2x1x16x16xf32>
    %129 = poot.reduce_max %128 {axis = 3 : i64, keepdim} : tensor<2x4x16x16xf32>
    %130 = poot.sub %128, %129 : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>
    %131 = poot.exp %130 : tensor<2x4x16x16xf32>
    %132 = poot.reduce_sum %131 {axis = 3 : i64, keepdim} : tensor<2x4x16x16xf32>
    %133 = poot.div %131, %132 : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>
    %134 = poot.matmul %133, %122 : tensor<2x4x16x16xf32>, tensor<2x4x16x32xf32>
    %135 = poot.transpose %134 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x16x32xf32>
    %136 = poot.reshape %135 : tensor<2x16x4x32xf32> -> tensor<2x16x128xf32>
    %137 = poot.matmul %136, %arg15 : tensor<2x16x128xf32>, tensor<128x128xf32>
    %138 = poot.add %76, %137 : tensor<2x16x128xf32>, tensor<2x16x128xf32>
    return %138, %43, %46, %113, %116 : tensor<2x16x128xf32>, tensor<128x2x32xf32>, tensor<128x2x32xf32>, tensor<128x2x32xf32>, tensor<128x2x32xf32>
  }
}

