// Origin: written for vmpack's corpus in the style of MLIR's unregistered-op tests
// Licence: part of vmpack, under vmpack's own terms (see test/corpus/SOURCES.md)
// Elements attributes nested in arrays and dictionaries, in properties of unregistered ops, several in one op, next to attributes that are not elements.

"vendor.global"() <{sym_name = "w", initial_value = dense<[1, -2, 3]> : tensor<3xi4>, value = dense<[true, false]> : tensor<2xi1>}> {sym_visibility = "private"} : () -> ()
"vendor.global"() <{sym_name = "dict", config = {scale = dense<[2.500000e-01, 5.000000e-01]> : tensor<2xf16>, zp = dense<-1> : tensor<2xi4>, note = "keep", n = 3 : i64}}> : () -> ()
func.func @nested() -> i32 {
  %0 = "vendor.op"() {table = [dense<[1, 2]> : tensor<2xi8>, [dense<7> : tensor<3xi3>, 5 : i32], {inner = dense<[0x3C00, 0xBC00]> : tensor<2xf16>}], plain = [1, 2, 3], arr = array<i32: 4, 5>} : () -> i32
  %1 = "vendor.op"() <{weights = [dense<[[1, 0], [0, 1]]> : tensor<2x2xi2>, dense<1.000000e+00> : tensor<4xbf16>], bias = dense<[0.5, -0.5]> : tensor<2xf32>}> {extra = dense<[3, 4]> : vector<2xi16>} : () -> i32
  %2 = "vendor.op"() {empty = dense<> : tensor<0xi4>, scalar = dense<5> : tensor<i4>, unranked_ok = "x"} : () -> i32
  return %0 : i32
}
