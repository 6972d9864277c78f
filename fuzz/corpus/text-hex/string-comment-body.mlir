"test.op"() {s = "dense<\"0x0102\"> : tensor<2xi8>", o = #unknown.x<dense<"0x0102"> : tensor<2xi8>>} : () -> ()
// dense<"0x0102"> : tensor<2xi8>
