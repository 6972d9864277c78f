// Constants whose names or types the weight formats cannot hold.
module {
  ml_program.global private @a_name_of_sixty_four_bytes_is_one_byte_longer_than_ggml_allows_x(dense<1> : tensor<2xi8>) : tensor<2xi8>
  ml_program.global private @__metadata__(dense<1> : tensor<2xi8>) : tensor<2xi8>
  ml_program.global private @q(dense<"0x0102"> : tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>) : tensor<2x!quant.uniform<i8:f32, 5.000000e-01>>
}
