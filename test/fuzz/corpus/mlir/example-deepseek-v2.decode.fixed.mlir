module {
  func.func @deepseek_v2_decode_fixed(%arg0: tensor<2x1x128xf32> {poot.name = "x"}, %arg1: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 64>, poot.slot = "pos"}, %arg2: tensor<128xf32> {poot.name = "l0.attn_norm"}, %arg3: tensor<128x192xf32> {poot.name = "l0.wq"}, %arg4: tensor<128x64xf32> {poot.name = "l0.wdkv"}, %arg5: tensor<128x16xf32> {poot.name = "l0.wkr"}, %arg6: tensor<2x1x64x64xf32> {poot.name = "l0.latent_cache", poot.state = "l0.latent_cache"}, %arg7: tensor<2x1x64x16xf32> {poot.name = "l0.rope_cache", poot.state = "l0.rope_cache"}, %arg8: tensor<64x128xf32> {poot.name = "l0.wuk"}, %arg9: tensor<64x128xf32> {poot.name = "l0.wuv"}, %arg10: tensor<128x128xf32> {poot.name = "l0.wo"}, %arg11: tensor<128xf32> {poot.name = "l1.attn_norm"}, %arg12: tensor<128x192xf32> {poot.name = "l1.wq"}, %arg13: tensor<128x64xf32> {poot.name = "l1.wdkv"}, %arg14: tensor<128x16xf32> {poot.name = "l1.wkr"}, %arg15: tensor<2x1x64x64xf32> {poot.name = "l1.latent_cache", poot.state = "l1.latent_cache"}, %arg16: tensor<2x1x64x16xf32> {poot.name = "l1.rope_cache", poot.state = "l1.rope_cache"}, %arg17: tensor<64x128xf32> {poot.name = "l1.wuk"}, %arg18: tensor<64x128xf32> {poot.name = "l1.wuv"}, %arg19: tensor<128x128xf32> {poot.name = "l1.wo"}) -> (tensor<2x1x128xf32> {poot.name = "y"}, tensor<2x1x64x64xf32> {poot.name = "l0.latent_cache", poot.state = "l0.latent_cache"}, tensor<2x1x64x16xf32> {poot.name = "l0.rope_cache", poot.state = "l0.rope_cache"}, tensor<2x1x64x64xf32> {poot.name = "l1.latent_cache", poot.state = "l1.latent_cache"}, tensor<2x1x64x16xf32> {poot.name = "l1.rope_cache", poot.state = "l1.rope_cache"}) {
    %0 = poot.reshape %arg1 : tensor<i32> -> tensor<1x1x1x1xi32>
    %1 = poot.convert %0 : tensor<1x1x1x1xi32> -> tensor<1x1x1x1xf32>
    %2 = poot.constant dense<[[[[1.000000e+00, 0.316227764, 1.000000e-01, 0.0316227749, 0.00999999977, 0.00316227763, 1.000000e-03, 3.16227757E-4]]]]> : tensor<1x1x1x8xf32>
    %3 = poot.mul %1, %2 : tensor<1x1x1x1xf32>, tensor<1x1x1x8xf32>
    %4 = poot.reshape %3 : tensor<1x1x1x8xf32> -> tensor<1x1x1x8x1xf32>
    %5 = poot.broadcast %4 {shape = array<i64: 1, 1, 1, 8, 2>} : tensor<1x1x1x8x1xf32>
    %6 = poot.reshape %5 : tensor<1x1x1x8x2xf32> -> tensor<1x1x1x16xf32>
    %7 = poot.cos %6 : tensor<1x1x1x16xf32>
    %8 = poot.sin %6 : tensor<1x1x1x16xf32>
    %9 = poot.mul %arg0, %arg0 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %10 = poot.reduce_sum %9 {axis = 2 : i64, keepdim} : tensor<2x1x128xf32>
    %11 = poot.constant dense<7.812500e-03> : tensor<f32>
    %12 = poot.broadcast %11 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %13 = poot.mul %10, %12 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %14 = poot.constant dense<9.99999997E-7> : tensor<f32>
    %15 = poot.broadcast %14 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %16 = poot.add %13, %15 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %17 = poot.rsqrt %16 : tensor<2x1x1xf32>
    %18 = poot.mul %arg0, %17 : tensor<2x1x128xf32>, tensor<2x1x1xf32>
    %19 = poot.mul %18, %arg2 : tensor<2x1x128xf32>, tensor<128xf32>
    %20 = poot.matmul %19, %arg3 : tensor<2x1x128xf32>, tensor<128x192xf32>
    %21 = poot.reshape %20 : tensor<2x1x192xf32> -> tensor<2x1x4x48xf32>
    %22 = poot.transpose %21 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x48xf32>
    %23 = poot.slice %22 {limit = array<i64: 2, 4, 1, 32>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x48xf32>
    %24 = poot.slice %22 {limit = array<i64: 2, 4, 1, 48>, start = array<i64: 0, 0, 0, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x48xf32>
    %25 = poot.slice %24 {limit = array<i64: 2, 4, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 2>} : tensor<2x4x1x16xf32>
    %26 = poot.slice %24 {limit = array<i64: 2, 4, 1, 16>, start = array<i64: 0, 0, 0, 1>, step = array<i64: 1, 1, 1, 2>} : tensor<2x4x1x16xf32>
    %27 = poot.neg %26 : tensor<2x4x1x8xf32>
    %28 = poot.reshape %27 : tensor<2x4x1x8xf32> -> tensor<2x4x1x8x1xf32>
    %29 = poot.reshape %25 : tensor<2x4x1x8xf32> -> tensor<2x4x1x8x1xf32>
    %30 = poot.concat %28, %29 {axis = 4 : i64} : tensor<2x4x1x8x1xf32>, tensor<2x4x1x8x1xf32>
    %31 = poot.reshape %30 : tensor<2x4x1x8x2xf32> -> tensor<2x4x1x16xf32>
    %32 = poot.mul %24, %7 : tensor<2x4x1x16xf32>, tensor<1x1x1x16xf32>
    %33 = poot.mul %31, %8 : tensor<2x4x1x16xf32>, tensor<1x1x1x16xf32>
    %34 = poot.add %32, %33 : tensor<2x4x1x16xf32>, tensor<2x4x1x16xf32>
    %35 = poot.concat %23, %34 {axis = 3 : i64} : tensor<2x4x1x32xf32>, tensor<2x4x1x16xf32>
    %36 = poot.matmul %19, %arg4 : tensor<2x1x128xf32>, tensor<128x64xf32>
    %37 = poot.reshape %36 : tensor<2x1x64xf32> -> tensor<2x1x1x64xf32>
    %38 = poot.matmul %19, %arg5 : tensor<2x1x128xf32>, tensor<128x16xf32>
    %39 = poot.reshape %38 : tensor<2x1x16xf32> -> tensor<2x1x1x16xf32>
    %40 = poot.transpose %39 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x1x16xf32>
    %41 = poot.slice %40 {limit = array<i64: 2, 1, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 2>} : tensor<2x1x1x16xf32>
    %42 = poot.slice %40 {limit = array<i64: 2, 1, 1, 16>, start = array<i64: 0, 0, 0, 1>, step = array<i64: 1, 1, 1, 2>} : tensor<2x1x1x16xf32>
    %43 = poot.neg %42 : tensor<2x1x1x8xf32>
    %44 = poot.reshape %43 : tensor<2x1x1x8xf32> -> tensor<2x1x1x8x1xf32>
    %45 = poot.reshape %41 : tensor<2x1x1x8xf32> -> tensor<2x1x1x8x1xf32>
    %46 = poot.concat %44, %45 {axis = 4 : i64} : tensor<2x1x1x8x1xf32>, tensor<2x1x1x8x1xf32>
    %47 = poot.reshape %46 : tensor<2x1x1x8x2xf32> -> tensor<2x1x1x16xf32>
    %48 = poot.mul %40, %7 : tensor<2x1x1x16xf32>, tensor<1x1x1x16xf32>
    %49 = poot.mul %47, %8 : tensor<2x1x1x16xf32>, tensor<1x1x1x16xf32>
    %50 = poot.add %48, %49 : tensor<2x1x1x16xf32>, tensor<2x1x1x16xf32>
    %51 = poot.constant dense<0> : tensor<i32>
    %52 = poot.dynamic_update_slice %arg6[%51, %51, %arg1, %51], %37 : tensor<2x1x64x64xf32>, tensor<2x1x1x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %53 = poot.constant dense<0> : tensor<i32>
    %54 = poot.dynamic_update_slice %arg7[%53, %53, %arg1, %53], %50 : tensor<2x1x64x16xf32>, tensor<2x1x1x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %55 = poot.reshape %52 : tensor<2x1x64x64xf32> -> tensor<2x64x64xf32>
    %56 = poot.matmul %55, %arg8 : tensor<2x64x64xf32>, tensor<64x128xf32>
    %57 = poot.reshape %56 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %58 = poot.transpose %57 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x64x4x32xf32>
    %59 = poot.matmul %55, %arg9 : tensor<2x64x64xf32>, tensor<64x128xf32>
    %60 = poot.reshape %59 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %61 = poot.transpose %60 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x64x4x32xf32>
    %62 = poot.broadcast %54 {shape = array<i64: 2, 4, 64, 16>} : tensor<2x1x64x16xf32>
    %63 = poot.concat %58, %62 {axis = 3 : i64} : tensor<2x4x64x32xf32>, tensor<2x4x64x16xf32>
    %64 = poot.iota {dim = 3 : i64} : tensor<1x1x1x64xi32>
    %65 = poot.compare gt, %64, %0 : tensor<1x1x1x64xi32>, tensor<1x1x1x1xi32>
    %66 = poot.constant dense<0xFF800000> : tensor<f32>
    %67 = poot.broadcast %66 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %68 = poot.constant dense<0.000000e+00> : tensor<f32>
    %69 = poot.broadcast %68 {shape = array<i64: 1, 1, 1, 64>} : tensor<f32>
    %70 = poot.select %65, %67, %69 : tensor<1x1x1x64xi1>, tensor<1x1x1x64xf32>, tensor<1x1x1x64xf32>
    %71 = poot.broadcast %70 {shape = array<i64: 2, 1, 1, 64>} : tensor<1x1x1x64xf32>
    %72 = poot.transpose %63 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x48xf32>
    %73 = poot.matmul %35, %72 : tensor<2x4x1x48xf32>, tensor<2x4x48x64xf32>
    %74 = poot.constant dense<0.144337565> : tensor<f32>
    %75 = poot.broadcast %74 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %76 = poot.mul %73, %75 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %77 = poot.add %76, %71 : tensor<2x4x1x64xf32>, tensor<2x1x1x64xf32>
    %78 = poot.reduce_max %77 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %79 = poot.sub %77, %78 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %80 = poot.exp %79 : tensor<2x4x1x64xf32>
    %81 = poot.reduce_sum %80 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %82 = poot.div %80, %81 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %83 = poot.matmul %82, %61 : tensor<2x4x1x64xf32>, tensor<2x4x64x32xf32>
    %84 = poot.transpose %83 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x32xf32>
    %85 = poot.reshape %84 : tensor<2x1x4x32xf32> -> tensor<2x1x128xf32>
    %86 = poot.matmul %85, %arg10 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %87 = poot.add %arg0, %86 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %88 = poot.mul %87, %87 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    %89 = poot.reduce_sum %88 {axis = 2 : i64, keepdim} : tensor<2x1x128xf32>
    %90 = poot.constant dense<7.812500e-03> : tensor<f32>
    %91 = poot.broadcast %90 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %92 = poot.mul %89, %91 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %93 = poot.constant dense<9.99999997E-7> : tensor<f32>
    %94 = poot.broadcast %93 {shape = array<i64: 2, 1, 1>} : tensor<f32>
    %95 = poot.add %92, %94 : tensor<2x1x1xf32>, tensor<2x1x1xf32>
    %96 = poot.rsqrt %95 : tensor<2x1x1xf32>
    %97 = poot.mul %87, %96 : tensor<2x1x128xf32>, tensor<2x1x1xf32>
    %98 = poot.mul %97, %arg11 : tensor<2x1x128xf32>, tensor<128xf32>
    %99 = poot.matmul %98, %arg12 : tensor<2x1x128xf32>, tensor<128x192xf32>
    %100 = poot.reshape %99 : tensor<2x1x192xf32> -> tensor<2x1x4x48xf32>
    %101 = poot.transpose %100 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x48xf32>
    %102 = poot.slice %101 {limit = array<i64: 2, 4, 1, 32>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x48xf32>
    %103 = poot.slice %101 {limit = array<i64: 2, 4, 1, 48>, start = array<i64: 0, 0, 0, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x1x48xf32>
    %104 = poot.slice %103 {limit = array<i64: 2, 4, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 2>} : tensor<2x4x1x16xf32>
    %105 = poot.slice %103 {limit = array<i64: 2, 4, 1, 16>, start = array<i64: 0, 0, 0, 1>, step = array<i64: 1, 1, 1, 2>} : tensor<2x4x1x16xf32>
    %106 = poot.neg %105 : tensor<2x4x1x8xf32>
    %107 = poot.reshape %106 : tensor<2x4x1x8xf32> -> tensor<2x4x1x8x1xf32>
    %108 = poot.reshape %104 : tensor<2x4x1x8xf32> -> tensor<2x4x1x8x1xf32>
    %109 = poot.concat %107, %108 {axis = 4 : i64} : tensor<2x4x1x8x1xf32>, tensor<2x4x1x8x1xf32>
    %110 = poot.reshape %109 : tensor<2x4x1x8x2xf32> -> tensor<2x4x1x16xf32>
    %111 = poot.mul %103, %7 : tensor<2x4x1x16xf32>, tensor<1x1x1x16xf32>
    %112 = poot.mul %110, %8 : tensor<2x4x1x16xf32>, tensor<1x1x1x16xf32>
    %113 = poot.add %111, %112 : tensor<2x4x1x16xf32>, tensor<2x4x1x16xf32>
    %114 = poot.concat %102, %113 {axis = 3 : i64} : tensor<2x4x1x32xf32>, tensor<2x4x1x16xf32>
    %115 = poot.matmul %98, %arg13 : tensor<2x1x128xf32>, tensor<128x64xf32>
    %116 = poot.reshape %115 : tensor<2x1x64xf32> -> tensor<2x1x1x64xf32>
    %117 = poot.matmul %98, %arg14 : tensor<2x1x128xf32>, tensor<128x16xf32>
    %118 = poot.reshape %117 : tensor<2x1x16xf32> -> tensor<2x1x1x16xf32>
    %119 = poot.transpose %118 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x1x16xf32>
    %120 = poot.slice %119 {limit = array<i64: 2, 1, 1, 16>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 2>} : tensor<2x1x1x16xf32>
    %121 = poot.slice %119 {limit = array<i64: 2, 1, 1, 16>, start = array<i64: 0, 0, 0, 1>, step = array<i64: 1, 1, 1, 2>} : tensor<2x1x1x16xf32>
    %122 = poot.neg %121 : tensor<2x1x1x8xf32>
    %123 = poot.reshape %122 : tensor<2x1x1x8xf32> -> tensor<2x1x1x8x1xf32>
    %124 = poot.reshape %120 : tensor<2x1x1x8xf32> -> tensor<2x1x1x8x1xf32>
    %125 = poot.concat %123, %124 {axis = 4 : i64} : tensor<2x1x1x8x1xf32>, tensor<2x1x1x8x1xf32>
    %126 = poot.reshape %125 : tensor<2x1x1x8x2xf32> -> tensor<2x1x1x16xf32>
    %127 = poot.mul %119, %7 : tensor<2x1x1x16xf32>, tensor<1x1x1x16xf32>
    %128 = poot.mul %126, %8 : tensor<2x1x1x16xf32>, tensor<1x1x1x16xf32>
    %129 = poot.add %127, %128 : tensor<2x1x1x16xf32>, tensor<2x1x1x16xf32>
    %130 = poot.constant dense<0> : tensor<i32>
    %131 = poot.dynamic_update_slice %arg15[%130, %130, %arg1, %130], %116 : tensor<2x1x64x64xf32>, tensor<2x1x1x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %132 = poot.constant dense<0> : tensor<i32>
    %133 = poot.dynamic_update_slice %arg16[%132, %132, %arg1, %132], %129 : tensor<2x1x64x16xf32>, tensor<2x1x1x16xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
    %134 = poot.reshape %131 : tensor<2x1x64x64xf32> -> tensor<2x64x64xf32>
    %135 = poot.matmul %134, %arg17 : tensor<2x64x64xf32>, tensor<64x128xf32>
    %136 = poot.reshape %135 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %137 = poot.transpose %136 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x64x4x32xf32>
    %138 = poot.matmul %134, %arg18 : tensor<2x64x64xf32>, tensor<64x128xf32>
    %139 = poot.reshape %138 : tensor<2x64x128xf32> -> tensor<2x64x4x32xf32>
    %140 = poot.transpose %139 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x64x4x32xf32>
    %141 = poot.broadcast %133 {shape = array<i64: 2, 4, 64, 16>} : tensor<2x1x64x16xf32>
    %142 = poot.concat %137, %141 {axis = 3 : i64} : tensor<2x4x64x32xf32>, tensor<2x4x64x16xf32>
    %143 = poot.transpose %142 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x64x48xf32>
    %144 = poot.matmul %114, %143 : tensor<2x4x1x48xf32>, tensor<2x4x48x64xf32>
    %145 = poot.constant dense<0.144337565> : tensor<f32>
    %146 = poot.broadcast %145 {shape = array<i64: 2, 4, 1, 64>} : tensor<f32>
    %147 = poot.mul %144, %146 : tensor<2x4x1x64xf32>, tensor<2x4x1x64xf32>
    %148 = poot.add %147, %71 : tensor<2x4x1x64xf32>, tensor<2x1x1x64xf32>
    %149 = poot.reduce_max %148 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %150 = poot.sub %148, %149 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %151 = poot.exp %150 : tensor<2x4x1x64xf32>
    %152 = poot.reduce_sum %151 {axis = 3 : i64, keepdim} : tensor<2x4x1x64xf32>
    %153 = poot.div %151, %152 : tensor<2x4x1x64xf32>, tensor<2x4x1x1xf32>
    %154 = poot.matmul %153, %140 : tensor<2x4x1x64xf32>, tensor<2x4x64x32xf32>
    %155 = poot.transpose %154 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x32xf32>
    %156 = poot.reshape %155 : tensor<2x1x4x32xf32> -> tensor<2x1x128xf32>
    %157 = poot.matmul %156, %arg19 : tensor<2x1x128xf32>, tensor<128x128xf32>
    %158 = poot.add %87, %157 : tensor<2x1x128xf32>, tensor<2x1x128xf32>
    return %158, %52, %54, %131, %133 : tensor<2x1x128xf32>, tensor<2x1x64x64xf32>, tensor<2x1x64x16xf32>, tensor<2x1x64x64xf32>, tensor<2x1x64x16xf32>
  }
}

