module @types {
  ml_program.global private @i4(dense<[1, -2, 3, -4, 5, 6, 7]> : tensor<7xi4>) : tensor<7xi4>
  ml_program.global private @u3(dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xui3>) : tensor<2x3xui3>
  ml_program.global private @b1(dense<[true, false, true, true, false, true, false, false, true]> : tensor<9xi1>) : tensor<9xi1>
  ml_program.global private @s7(dense<[-60, 63, 0, 1, -1]> : tensor<5xsi7>) : tensor<5xsi7>
  ml_program.global private @f16(dense<[1.0, -2.5, 65504.0]> : tensor<3xf16>) : tensor<3xf16>
  ml_program.global private @bf(dense<[1.0, 3.0]> : tensor<2xbf16>) : tensor<2xbf16>
  ml_program.global private @f4(dense<[0.5, 1.0, -6.0]> : tensor<3xf4E2M1FN>) : tensor<3xf4E2M1FN>
  ml_program.global private @f6(dense<[0.5, 1.0]> : tensor<2xf6E3M2FN>) : tensor<2xf6E3M2FN>
  ml_program.global private @f8(dense<[0.5, 448.0]> : tensor<2xf8E4M3FN>) : tensor<2xf8E4M3FN>
  ml_program.global private @c(dense<[(1, 2), (-1, -2)]> : tensor<2xcomplex<i5>>) : tensor<2xcomplex<i5>>
  ml_program.global private @i12(dense<[2047, -2048, 5]> : tensor<3xi12>) : tensor<3xi12>
  ml_program.global private @idx(dense<[1, 2]> : tensor<2xindex>) : tensor<2xindex>
  ml_program.global private @e(dense<> : tensor<0xi4>) : tensor<0xi4>
  ml_program.global private @splat(dense<3> : tensor<4x5xi2>) : tensor<4x5xi2>
  ml_program.global private @f32(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
}
