%0 = arith.constant dense<"0x0102030405060708"> : tensor<8xi8>
