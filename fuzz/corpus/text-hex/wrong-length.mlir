%0 = arith.constant dense<"0x010203"> : tensor<4xi8>
