func.func @fold_binary() -> (tensor<2x2xf32>, tensor<4xi32>, tensor<4xi32>, tensor<f32>, tensor<2xf32>, tensor<2xi32>) {
  %a = poot.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %b = poot.constant dense<[10.0, 21.0]> : tensor<2xf32>
  %sum = poot.add %a, %b : tensor<2x1xf32>, tensor<2xf32>
  %n = poot.constant dense<[7, -7, 5, -2147483647]> : tensor<4xi32>
  %two = poot.constant dense<[2, 2, 2, -1]> : tensor<4xi32>
  %q = poot.div %n, %two : tensor<4xi32>, tensor<4xi32>
  %mn = poot.constant dense<[-5, 5, 1073741824, 2]> : tensor<4xi32>
  %mf = poot.constant dense<[1, 1, 2, 4]> : tensor<4xi32>
  %m = poot.mul %mn, %mf : tensor<4xi32>, tensor<4xi32>
  %base = poot.constant dense<2.0> : tensor<f32>
  %e = poot.constant dense<-2.0> : tensor<f32>
  %p = poot.pow %base, %e : tensor<f32>, tensor<f32>
  %x1 = poot.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %x2 = poot.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %x = poot.max %x1, %x2 : tensor<2xf32>, tensor<2xf32>
  %i = poot.constant dense<[1, 2]> : tensor<2xi32>
  %zero = poot.constant dense<0> : tensor<2xi32>
  %z = poot.div %i, %zero : tensor<2xi32>, tensor<2xi32>
  return %sum, %q, %m, %p, %x, %z : tensor<2x2xf32>, tensor<4xi32>, tensor<4xi32>, tensor<f32>, tensor<2xf32>, tensor<2xi32>
}
