// REQUIRES: mlir
// Constants of ops of any dialect, registered or not, in generic form: an
// IREE-style module (util.global, flow.tensor.constant), StableHLO and
// torch-mlir constants, quantized element types, nested attributes and
// several constants in one op. Each compiles from text and from bytecode in
// every encoding, verifies, and rebuilds to the input (compared in generic
// form, as MLIR prints it).
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %s -o %t/expected.mlir
// RUN: mlir-opt --allow-unregistered-dialect %s --emit-bytecode -o %t/in.mlirbc
// RUN: vmpack-compile %s -o %t/text.vmpk
// RUN: vmpack-dump --verify %t/text.vmpk
// RUN: vmpack-dump %t/text.vmpk | FileCheck %s --check-prefix=TABLE
// RUN: vmpack-dump --mlir --mlir-print-op-generic %t/text.vmpk -o %t/text.mlir
// RUN: mlir-opt --allow-unregistered-dialect --mlir-print-op-generic %t/text.mlir | diff %t/expected.mlir -
// RUN: vmpack-compile %t/in.mlirbc -o %t/packed.vmpk --encoding=packed
// RUN: vmpack-dump --mlir %t/packed.vmpk | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | diff %t/expected.mlir -
// RUN: vmpack-compile %t/in.mlirbc -o %t/word.vmpk --encoding=word
// RUN: vmpack-dump --verify %t/word.vmpk
// RUN: vmpack-dump --mlir %t/word.vmpk | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | diff %t/expected.mlir -
// RUN: vmpack-compile %t/in.mlirbc -o %t/byte.vmpk --encoding=byte --threads=1
// RUN: vmpack-dump --mlir %t/byte.vmpk | mlir-opt --allow-unregistered-dialect --mlir-print-op-generic | diff %t/expected.mlir -
// Text and bytecode give the same segments.
// RUN: vmpack-compile %t/in.mlirbc -o %t/bc.vmpk
// RUN: vmpack-dump --json %t/text.vmpk > %t/text.json
// RUN: vmpack-dump --json %t/bc.vmpk > %t/bc.json
// RUN: %python -c "import json,sys; a,b=(json.load(open(p)) for p in sys.argv[1:]); k=('tensors','aliases','metadata'); assert a['tensors'] and [a[x] for x in k] == [b[x] for x in k], 'the segments differ'" %t/text.json %t/bc.json
// The int4 weights through the C runtime, sign-extended; quantized i4
// storage is signed, u4 unsigned.
// RUN: vmpack-example %t/text.vmpk w4 | FileCheck %s --check-prefix=W4
// RUN: vmpack-example %t/text.vmpk main.cst2 | FileCheck %s --check-prefix=QI4
// RUN: vmpack-example %t/text.vmpk main.cst3 | FileCheck %s --check-prefix=QU4
// Strict mode refuses the same module.
// RUN: not vmpack-compile %s -o %t/strict.vmpk --no-allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: not ls %t/strict.vmpk
// RUN: vmpack-compile --allow-unregistered-dialect %s -o %t/habit.vmpk

// TABLE: module 'iree_style' (producer 'vmpack-compile', format 1): 15 segments
// TABLE-NEXT: name
// TABLE-NEXT: w4                tensor<5xi4>
// TABLE-NEXT: mask              tensor<3xi1>
// TABLE-NEXT: h                 tensor<2xf16>
// TABLE-NEXT: b                 tensor<4xbf16>
// TABLE-NEXT: f8                tensor<2xf8E4M3FN>
// TABLE-NEXT: two.value         tensor<2xi8>
// TABLE-NEXT: two.initial_value tensor<3xi2>
// TABLE-NEXT: main.cst0         tensor<4xi4>
// TABLE-NEXT: main.cst1         tensor<2x3xf32>
// TABLE-NEXT: main.cst2         tensor<2x!quant.uniform<i4:f32, 5.000000e-01:-1>>
// TABLE-NEXT: main.cst3         tensor<3x!quant.uniform<u4:f32, 2.500000e-01:8>>
// TABLE-NEXT: main.cst4         tensor<3xsi64>
// TABLE-NEXT: main.cst5.a.0     tensor<2xi8>
// TABLE-NEXT: main.cst5.a.1.k   tensor<2xi3>
// TABLE-NEXT: main.cst5.b       tensor<1xi32>
// W4: w4[0:5] = 1 -2 3 -8 7
// QI4: main.cst2[0:2] = 1 -1
// QU4: main.cst3[0:3] = 15 0 8
// STRICT: any-dialect.mlir:[[@LINE+3]]:{{[0-9]+}}: error: operation being parsed with an unregistered dialect

module @iree_style {
  "util.global"() <{initial_value = dense<[1, -2, 3, -8, 7]> : tensor<5xi4>, sym_name = "w4", sym_visibility = "private", type = tensor<5xi4>}> : () -> ()
  "util.global"() <{initial_value = dense<[true, false, true]> : tensor<3xi1>, sym_name = "mask", sym_visibility = "private", type = tensor<3xi1>}> : () -> ()
  "util.global"() <{initial_value = dense<[1.0, 2.5]> : tensor<2xf16>, sym_name = "h", sym_visibility = "private", type = tensor<2xf16>}> : () -> ()
  "util.global"() <{initial_value = dense<1.5> : tensor<4xbf16>, sym_name = "b", sym_visibility = "private", type = tensor<4xbf16>}> : () -> ()
  "util.global"() <{initial_value = dense<[0.5, -1.0]> : tensor<2xf8E4M3FN>, sym_name = "f8", sym_visibility = "private", type = tensor<2xf8E4M3FN>}> : () -> ()
  "util.global"() <{initial_value = #util.byte_pattern<1> : tensor<2xi8>, sym_name = "pattern", sym_visibility = "private", type = tensor<2xi8>}> : () -> ()
  "util.global"() <{initial_value = dense<[1, 2, 3]> : tensor<3xi2>, sym_name = "two", type = tensor<3xi2>}> {value = dense<7> : tensor<2xi8>} : () -> ()
  "util.func"() <{function_type = () -> tensor<4xi4>, sym_name = "main"}> ({
    %0 = "flow.tensor.constant"() <{value = dense<[1, 2, 3, 4]> : tensor<4xi4>}> : () -> tensor<4xi4>
    %1 = "flow.tensor.constant"() <{value = dense<2> : tensor<2x0x3xi4>}> : () -> tensor<2x0x3xi4>
    %2 = "stablehlo.constant"() <{value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
    %3 = "stablehlo.constant"() <{value = dense<"0x010F"> : tensor<2x!quant.uniform<i4:f32, 5.000000e-01:-1>>}> : () -> tensor<2x!quant.uniform<i4:f32, 5.000000e-01:-1>>
    %4 = "tosa.const"() <{values = dense_resource<q> : tensor<3x!quant.uniform<u4:f32, 2.500000e-01:8>>}> : () -> tensor<3x!quant.uniform<u4:f32, 2.500000e-01:8>>
    %5 = "torch.vtensor.literal"() <{value = dense<[1, -2, 3]> : tensor<3xsi64>}> : () -> !torch.vtensor<[3],si64>
    "foo.multi"() {a = [dense<1> : tensor<2xi8>, {k = dense<[1, 2]> : tensor<2xi3>}], b = dense<[3]> : tensor<1xi32>, c = "not a constant"} : () -> ()
    "util.return"(%0) : (tensor<4xi4>) -> ()
  }) : () -> ()
}
{-# dialect_resources: { builtin: { q: "0x040000000F0008" } } #-}
