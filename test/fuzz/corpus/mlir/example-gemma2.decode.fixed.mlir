module {
  func.func @gemma2_decode_fixed(%arg0: tensor<2x1x128xf32> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 64>, poot.slot = "pos"}, %arg2: tensor<128xf32> {poot.name = "l0.attn_norm"}, %arg3: tensor<128x256xf32> {poot.name = "l0.wq"}, %arg4: tensor<128x128xf32> {poot.name = "l0.wk"}, %arg5: tensor<128x128xf32> {poot.name = "l0.wv"}, %arg6: tensor<2x2x64x64xf32> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, %arg7: tensor<2x2x64x64xf32> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}, %arg8: tensor<256x128xf32> {poot.name = "l0.wo"}, %arg9: tensor<128xf32> {poot.name = "l1.attn_norm"}, %arg10: tensor<128x256xf32> {poot.name = "l1.wq"}, %arg11: tensor<128x128xf32> {poot.name = "l1.wk"}, %arg12: tensor<128x128xf32> {poot.name = "l1.wv"}, %arg13: tensor<2x2x64x64xf32> {poot.name = "l1.k_cache", poot.state = "l1.k_cache"}, %arg14: tensor<2x2x64x64xf32> {poot.name = "l1.v_cache", poot.state = "l1.v_cache"}, %arg15: tensor<256x128xf32> {poot.name = "l1.wo"}) -> (tensor<2x1x128xf32> {poot.name = "y"}, tensor<2x2x64x64xf32> {poot.name = "l0.k_cache", poot.state = "l0.k_cache"}, tensor<2x2x64x64xf32> {poot.name = "l0.v_cache", poot.state = "l0.v_cache"}, tensor<2x2x64x64xf32> {poot.name = "l1.k_cache", poot.state = "l1.k_cache"}, tensor<2x2x64x64xf32> {poot.name = "l1.v_cache", poot.state = "l1.v_cache"}) {
    %0 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.convert %0 : tensor<1x1x1x1xi32> -> tensor<1x1x1x1xf32>
    %2 = poot.constant dense<[[[[1.000000e+00, 0.749894201, 0.562341332, 0.421696514, 0.316227764, 0.237137377, 0.177827939, 0.133352146, 1.000000e-01, 0.0749894232, 0.0562341325, 0.0421696492, 0.0316227749, 0.0237137377, 0.0177827943, 0.013335214, 0.00999999977, 0.00749894232, 0.00562341325, 0.00421696482, 0.00316227763, 0.00237137382, 0.00177827943, 0.00133352145, 1.000000e-03, 7.49894185E-4, 5.62341302E-4, 4.21696517E-4, 3.16227757E-4, 2.3713737E-4, 1.7782794E-4, 1.3335215E-4]]]]> : tensor<1x1x1x32xf32>
    %3 = poot.mul %1, %2 : tensor<1x1x1x1xf32>, tensor<1x1x1x32xf32>
    %4 = poot.concat %3, %3 {axis = 3 : i64} : tensor<1x1x1x32xf32>, tensor<1x1x1x32xf32>
    %5 = poot.cos %4 : tensor<1x1x1x64xf32>
    %6 = poot.sin %4 : tensor<1x1x1x64xf32>
    %7 = poot.mul %arg0, %arg0 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %8 = poot.reduce_sum %7 {axis = 2 : i64, keepdim} : tensor<2x1x128xf32>
    %9 = poot.constant dense<7.812500e-03> : tensor<f32>
    %10 = poot.broadcast %9 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %11 = poot.mul %8, %10 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %12 = poot.constant dense<9.99999997E-7> : tensor<f32>
    %13 = poot.broadcast %12 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %14 = poot.add %11, %13 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %15 = poot.rsqrt %14 : tensor<2x1x1xf32>
    %16 = poot.mul %arg0, %15 : tensor<2x1x128xf32>, tensor<2x1x1xf32>
    %17 = poot.mul %16, %arg2 : tensor<2x1x128xf32>, tensor<128xf32>
    %18 = poot.matmul %17, %arg3 : tensor<2x1x128xf32>, tensor<128x256xf32>
    %19 = poot.reshape %18 : tensor<2x1x256xf32> -> tensor<2x1x4x64xf32>
    %20 = poot.transpose %19 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x64xf32>
    %21 = poot.matmul %17, %arg4 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %22 = poot.reshape %21 : tensor<2x1x128xf32> -> tensor<2x1x2x64xf32>
    %23 = poot.transpose %22 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x64xf32>
    %24 = poot.matmul %17, %arg5 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %25 = poot.reshape %24 : tensor<2x1x128xf32> -> tensor<2x1x2x64xf32>
    %26 = poot.transpose %25 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x64xf32>
    %27 = poot.slice %20 {limit = array<i64: 2, 4, 1, 32>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x64xf32>
    %28 = poot.slice %20 {limit = array<i64: 2, 4, 1, 64>, start = array<i64: 0, 0, 0, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x64xf32>
    %29 = poot.neg %28 : tensor<2x4x1x32xf32>
    %30 = poot.concat %29, %27 {axis = 3 : i64} : tensor<2x4x1x32xf32>, tensor<2x4x1x32xf32>
    %31 = poot.mul %20, %5 : tensor<2x4x1x64xf32>, tensor<1x1x1x64xf32>
    %32 = poot.mul %30, %6 : tensor<2x4x1x64xf32>, tensor<1x1x1x64xf32>
    %33 = poot.add %31, %32 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %34 = poot.slice %23 {limit = array<i64: 2, 2, 1, 32>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x64xf32>
    %35 = poot.slice %23 {limit = array<i64: 2, 2, 1, 64>, start = array<i64: 0, 0, 0, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x64xf32>
    %36 = poot.neg %35 : tensor<2x2x1x32xf32>
    %37 = poot.concat %36, %34 {axis = 3 : i64} : tensor<2x2x1x32xf32>, tensor<2x2x1x32xf32>
    %38 = poot.mul %23, %5 : tensor<2x2x1x64xf32>, tensor<1x1x1x64xf32>
    %39 = poot.mul %37, %6 : tensor<2x2x1x64xf32>, tensor<1x1x1x64xf32>
    %40 = poot.add %38, %39 : tensor<2x2x1x64xf32>, tensor<2x2x1x64xf32>
    %41 = poot.constant dense<0> : tensor<i32>
    %42 = poot.dynamic_update_slice %arg6[%41, %41, %arg1, %41], %40 : tensor<2x2x64x64xf32>, tensor<2x2x1x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %43 = poot.dynamic_update_slice %arg7[%41, %41, %arg1, %41], %26 : tensor<2x2x64x64xf32>, tensor<2x2x1x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %44 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %45 = poot.compare gt, %44, %0 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %46 = poot.constant dense<8> : tensor<i32>
    %47 = poot.broadcast %46 {shape = array<i64: 1, 1, 1, 1>} : tensor<i32>
    %48 = poot.sub %0, %47 : tensor<1x1x1x1xi32>, tensor<1x1x1x1xi32>
    %49 = poot.compare le, %44, %48 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %50 = poot.or %45, %49 : tensor<1x1x1x64xi1>, tensor<1x1x1x64xi1>
    %51 = poot.constant dense<0xFF800000> : tensor<f32>
    %52 = poot.broadcast %51 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %53 = poot.constant dense<0.000000e+00> : tensor<f32>
    %54 = poot.broadcast %53 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %55 = poot.select %50, %52, %54 : tensor<1x1x1x64xi1>, tensor<1x1x1x64xf32>, tensor<1x1x1x64xf32>
    %56 = poot.broadcast %55 {shape = array<i64: 2, 1, 1, 64>} : tensor<1x1x1x64xf32>
    %57 = poot.reshape %42 : tensor<2x2x64x64xf32> -> tensor<2x2x1x64x64xf32>
    %58 = poot.broadcast %57 {shape = array<i64: 2, 2, 2, 64, 64>} : tensor<2x2x1x64x64xf32>
    %59 = poot.reshape %58 : tensor<2x2x2x64x64xf32> -> tensor<2x4x64x64xf32>
    %60 = poot.reshape %43 : tensor<2x2x64x64xf32> -> tensor<2x2x1x64x64xf32>
    %61 = poot.broadcast %60 {shape = array<i64: 2, 2, 2, 64, 64>} : tensor<2x2x1x64x64xf32>
    %62 = poot.reshape %61 : tensor<2x2x2x64x64xf32> -> tensor<2x4x64x64xf32>
    %63 = poot.transpose %59 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x64xf32>
    %64 = poot.matmul %33, %63 : tensor<2x4x1x64xf32>, tensor<2x4x64x64xf32>
    %65 = poot.constant dense<1.250000e-01> : tensor<f32>
    %66 = poot.broadcast %65 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %67 = poot.mul %64, %66 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %68 = poot.constant dense<5.000000e+01> : tensor<f32>
    %69 = poot.broadcast %68 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %70 = poot.div %67, %69 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %71 = poot.tanh %70 : tensor<2x4x1x64xf32>
    %72 = poot.constant dense<5.000000e+01> : tensor<f32>
    %73 = poot.broadcast %72 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %74 = poot.mul %71, %73 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %75 = poot.add %74, %56 : tensor<2x4x1x64xf32>, tensor<2x1x1x64xf32>
    %76 = poot.reduce_max %75 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %77 = poot.sub %75, %76 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %78 = poot.exp %77 : tensor<2x4x1x64xf32>
    %79 = poot.reduce_sum %78 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %80 = poot.div %78, %79 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %81 = poot.matmul %80, %62 : tensor<2x4x1x64xf32>, tensor<2x4x64x64xf32>
    %82 = poot.transpose %81 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x64xf32>
    %83 = poot.reshape %82 : tensor<2x1x4x64xf32> -> tensor<2x1x256xf32>
    %84 = poot.matmul %83, %arg8 : tensor<2x1x256xf32>, tensor<256x128xf32>
    %85 = poot.add %arg0, %84 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %86 = poot.mul %85, %85 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %87 = poot.reduce_sum %86 {axis = 2 : i64, keepdim} : tensor<2x1x128xf32>
    %88 = poot.constant dense<7.812500e-03> : tensor<f32>
    %89 = poot.broadcast %88 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %90 = poot.mul %87, %89 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %91 = poot.constant dense<9.99999997E-7> : tensor<f32>
    %92 = poot.broadcast %91 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %93 = poot.add %90, %92 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %94 = poot.rsqrt %93 : tensor<2x1x1xf32>
    %95 = poot.mul %85, %94 : tensor<2x1x128xf32>, tensor<2x1x1xf32>
    %96 = poot.mul %95, %arg9 : tensor<2x1x128xf32>, tensor<128xf32>
    %97 = poot.matmul %96, %arg10 : tensor<2x1x128xf32>, tensor<128x256xf32>
    %98 = poot.reshape %97 : tensor<2x1x256xf32> -> tensor<2x1x4x64xf32>
    %99 = poot.transpose %98 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x64xf32>
    %100 = poot.matmul %96, %arg11 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %101 = poot.reshape %100 : tensor<2x1x128xf32> -> tensor<2x1x2x64xf32>
    %102 = poot.transpose %101 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x64xf32>
    %103 = poot.matmul %96, %arg12 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %104 = poot.reshape %103 : tensor<2x1x128xf32> -> tensor<2x1x2x64xf32>
    %105 = poot.transpose %104 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x64xf32>
    %106 = poot.slice %99 {limit = array<i64: 2, 4, 1, 32>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x64xf32>
    %107 = poot.slice %99 {limit = array<i64: 2, 4, 1, 64>, start = array<i64: 0, 0, 0, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x64xf32>
    %108 = poot.neg %107 : tensor<2x4x1x32xf32>
    %109 = poot.concat %108, %106 {axis = 3 : i64} : tensor<2x4x1x32xf32>, tensor<2x4x1x32xf32>
    %110 = poot.mul %99, %5 : tensor<2x4x1x64xf32>, tensor<1x1x1x64xf32>
    %111 = poot.mul %109, %6 : tensor<2x4x1x64xf32>, tensor<1x1x1x64xf32>
    %112 = poot.add %110, %111 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %113 = poot.slice %102 {limit = array<i64: 2, 2, 1, 32>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x64xf32>
    %114 = poot.slice %102 {limit = array<i64: 2, 2, 1, 64>, start = array<i64: 0, 0, 0, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x1x64xf32>
    %115 = poot.neg %114 : tensor<2x2x1x32xf32>
    %116 = poot.concat %115, %113 {axis = 3 : i64} : tensor<2x2x1x32xf32>, tensor<2x2x1x32xf32>
    %117 = poot.mul %102, %5 : tensor<2x2x1x64xf32>, tensor<1x1x1x64xf32>
    %118 = poot.mul %116, %6 : tensor<2x2x1x64xf32>, tensor<1x1x1x64xf32>
    %119 = poot.add %117, %118 : tensor<2x2x1x64xf32>, tensor<2x2x1x64xf32>
    %120 = poot.constant dense<0> : tensor<i32>
    %121 = poot.dynamic_update_slice %arg13[%120, %120, %arg1, %120], %119 : tensor<2x2x64x64xf32>, tensor<2x2x1x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %122 = poot.dynamic_update_slice %arg14[%120, %120, %arg1, %120], %105 : tensor<2x2x64x64xf32>, tensor<2x2x1x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %123 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %124 = poot.compare gt, %123, %0 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %125 = poot.constant dense<0xFF800000> : tensor<f32>
    %126 = poot.broadcast %125 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %127 = poot.constant dense<0.000000e+00> : tensor<f32>
    %128 = poot.broadcast %127 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %129 = poot.select %124, %126, %128 : tensor<1x1x1x64xi1>, tensor<1x1x1x64xf32>, tensor<1x1x1x64xf32>
    %130 = poot.broadcast %129 {shape = array<i64: 2, 1, 1, 64>} : tensor<1x1x1x64xf32>
    %131 = poot.reshape %121 : tensor<2x2x64x64xf32> -> tensor<2x2x1x64x64xf32>
    %132 = poot.broadcast %131 {shape = array<i64: 2, 2, 2, 64, 64>} : tensor<2x2x1x64x64xf32>
    %133 = poot.reshape %132 : tensor<2x2x2x64x64xf32> -> tensor<2x4x64x64xf32>
    %134 = poot.reshape %122 : tensor<2x2x64x64xf32> -> tensor<2x2x1x64x64xf32>
    %135 = poot.broadcast %134 {shape = array<i64: 2, 2, 2, 64, 64>} : tensor<2x2x1x64x64xf32>
    %136 = poot.reshape %135 : tensor<2x2x2x64x64xf32> -> tensor<2x4x64x64xf32>
    %137 = poot.transpose %133 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x64xf32>
    %138 = poot.matmul %112, %137 : tensor<2x4x1x64xf32>, tensor<2x4x64x64xf32>
    %139 = poot.constant dense<1.250000e-01> : tensor<f32>
    %140 = poot.broadcast %139 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %141 = poot.mul %138, %140 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %142 = poot.constant dense<5.000000e+01> : tensor<f32>
    %143 = poot.broadcast %142 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %144 = poot.div %141, %143 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %145 = poot.tanh %144 : tensor<2x4x1x64xf32>
    %146 = poot.constant dense<5.000000e+01> : tensor<f32>
    %147 = poot.broadcast %146 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %148 = poot.mul %145, %147 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %149 = poot.add %148, %130 : tensor<2x4x1x64xf32>, tensor<2x1x1x64xf32>
    %150 = poot.reduce_max %149 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %151 = poot.sub %149, %150 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %152 = poot.exp %151 : tensor<2x4x1x64xf32>
    %153 = poot.reduce_sum %152 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %154 = poot.div %152, %153 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %155 = poot.matmul %154, %136 : tensor<2x4x1x64xf32>, tensor<2x4x64x64xf32>
    %156 = poot.transpose %155 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x64xf32>
    %157 = poot.reshape %156 : tensor<2x1x4x64xf32> -> tensor<2x1x256xf32>
    %158 = poot.matmul %157, %arg15 : tensor<2x1x256xf32>, tensor<256x128xf32>
    %159 = poot.add %85, %158 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    return %159, %42, %43, %121, %122 : tensor<2x1x128xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>, tensor<2x2x64x64xf32>
  }
}

