"test.r"() ({ "test.a"() {v = dense<"0xAABBCCDD"> : tensor<2xi16>} : () -> () "test.b"() {w = dense<"0x01020304"> : tensor<4xi8>} : () -> () }) : () -> ()
