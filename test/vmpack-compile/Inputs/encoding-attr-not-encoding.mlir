// Not an encoding.
ml_program.global private @w(dense<[1, 2]> : tensor<2xi4>) : tensor<2xi4> {vmpack.encoding = "word"}
