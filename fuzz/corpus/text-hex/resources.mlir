"test.op"() {r = dense_resource<blob> : tensor<2xi16>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob: "0x0800000001020304"
    }
  }
#-}
