// Compiles and rebuilds exactly with any vmpack that reads ml_program.
ml_program.global private @w(dense<[1, -2, 3, -8]> : tensor<4xi4>) : tensor<4xi4>
