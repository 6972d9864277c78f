module {
  ml_program.global private @scale(dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>) : tensor<2x2xf32>
  ml_program.global private @ones(dense<1.0> : tensor<3xf16>) : tensor<3xf16>
  func.func @main() -> tensor<2xf32> {
    %c = arith.constant dense<1.5> : tensor<2xf32>
    return %c : tensor<2xf32>
  }
}
