module {
  ml_program.global private @w(dense<[1, 2, 3]> : tensor<3xi65>) : tensor<3xi65>
  ml_program.global private @c(dense<[(1.0, 2.0)]> : tensor<1xcomplex<f16>>) : tensor<1xcomplex<f16>>
}
