ml_program.global private @bad(dense_resource<three> : tensor<10xi1>) : tensor<10xi1>
{-# dialect_resources: { builtin: { three: "0x01000000010203" } } #-}
