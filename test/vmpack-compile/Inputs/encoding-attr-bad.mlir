// A width the `word` encoding does not cover, asked for by the attribute.
ml_program.global private @wide(dense<[1, 2]> : tensor<2xi70>) : tensor<2xi70> {vmpack.encoding = #vmpack.encoding<word>}
