ml_program.global private @g(dense<"0x3F80"> : tensor<16xbf16>) : tensor<16xbf16>
ml_program.global private @h(dense<"0x3f803f80"> : tensor<2xbf16>) : tensor<2xbf16>
