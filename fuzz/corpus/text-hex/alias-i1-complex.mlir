#a = dense<"0xFF00FF00"> : tensor<32xi1>
"test.op"() {a = #a, c = dense<"0x0000803F00000040"> : tensor<1xcomplex<f32>>} : () -> ()
