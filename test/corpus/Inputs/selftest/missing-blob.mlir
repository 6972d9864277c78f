// Refused: the blob is not in the file.
ml_program.global private @w(dense_resource<absent> : tensor<4xi4>) : tensor<4xi4>
