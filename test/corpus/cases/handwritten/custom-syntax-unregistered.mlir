// Origin: written for vmpack's corpus in the style of IREE's tests, left in the util dialect's custom syntax
// Licence: part of vmpack, under vmpack's own terms (see test/corpus/SOURCES.md)
// No tool here registers util: custom syntax of an unknown dialect cannot be parsed. The message must name the op, at its location.

util.global private @w = dense<[1, 2, 3]> : tensor<3xi4>
