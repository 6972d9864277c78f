// vmpack-compile to an IREE parameter archive (.irpa): every global's value
// becomes an entry keyed by its symbol name, in module order, in vmpack's
// `word` encoding (i1: one byte per element); immutable splats become
// splat entries when a 1-16 byte pattern gives their exact bytes; the
// program refers to each entry as #flow.parameter.named<"SCOPE"::"KEY">
// (docs/irpa.md, section 7).
// REQUIRES: mlir
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-compile %s -o %t/p.irpa --parameter-scope=model --emit-program=%t/p.mlir --threads=1
// RUN: vmpack-dump %t/p.irpa | FileCheck %s --check-prefix=DUMP
// RUN: FileCheck %s --check-prefix=PROGRAM < %t/p.mlir

// DUMP: IREE parameter archive (version 0.0): 16 entries
// DUMP: f.cst0     -     data              8         64
// DUMP: w_i4       -     data              3         64
// DUMP-NEXT: s_i4_even  -     splat             2          0             -  55
// DUMP-NEXT: s_i4_odd   -     data              2         64
// DUMP-NEXT: mask       -     data              4         64
// DUMP-NEXT: s_i1       -     splat             1          0             -  01
// DUMP-NEXT: h          -     data              6         64
// DUMP-NEXT: s_f32      -     splat             8          0             -  00 00 30 41
// DUMP-NEXT: m_f32      -     data              8         64
// DUMP-NEXT: c64        -     splat            16          0             -  00 00 80 3f 00 00 00 40
// DUMP-NEXT: i33        -     data             16         64
// DUMP-NEXT: e          -     data              0         64
// DUMP-NEXT: bf         -     data              4         64
// DUMP-NEXT: f8         -     data              2         64
// DUMP-NEXT: small      -     splat             1          0             -  07
// DUMP-NEXT: mlp        -     data              3         64

// The bytes of each entry.
// RUN: %python %S/Inputs/check_irpa_bytes.py %t/p.irpa \
// RUN:   w_i4=214305 s_i4_even=5555 s_i4_odd=5505 mask=01000101 s_i1=01 \
// RUN:   h=003c00400042 s_f32=0000304100003041 m_f32=0000304100003041 \
// RUN:   c64=0000803f000000400000803f00000040 \
// RUN:   i33=0100000000000000ffffffff01000000 e= bf=803f00c0 f8=3840 \
// RUN:   small=07 mlp=010203

// PROGRAM: ml_program.global private @f.cst0(#flow.parameter.named<"model"::"f.cst0"> : tensor<2xi32>) : tensor<2xi32>
// PROGRAM: "util.global"() <{initial_value = #flow.parameter.named<"model"::"w_i4"> : tensor<5xi4>, sym_name = "w_i4", sym_visibility = "private", type = tensor<5xi4>}> : () -> ()
// PROGRAM: "util.global"() <{initial_value = #flow.parameter.named<"model"::"m_f32"> : tensor<2xf32>, is_mutable, sym_name = "m_f32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
// PROGRAM: ml_program.global private @mlp(#flow.parameter.named<"model"::"mlp"> : tensor<3xi8>) : tensor<3xi8>
// PROGRAM: ml_program.global_load_const @f.cst0 : tensor<2xi32>

// The same bytes for any thread count; --format overrides the extension.
// RUN: vmpack-compile %s -o %t/p4.bin --format=irpa --parameter-scope=model --threads=4
// RUN: cmp %t/p.irpa %t/p4.bin
// RUN: %exit 2 vmpack-compile %s -o %t/x.irpa --format=zip 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: vmpack-compile: error: --format=zip: vmpack-compile writes vmpk, irpa, safetensors or gguf

// --parameter-minimum-size: smaller globals stay in the program.
// RUN: vmpack-compile %s -o %t/min.irpa --parameter-minimum-size=4 --emit-program=%t/min.mlir
// RUN: vmpack-dump %t/min.irpa | FileCheck %s --check-prefix=MIN
// RUN: FileCheck %s --check-prefix=MINPROG < %t/min.mlir
// MIN: IREE parameter archive (version 0.0): 8 entries
// MIN: f.cst0
// MIN-NOT: s_i4_even
// MIN: mask
// MINPROG: initial_value = dense<5> : tensor<4xi4>, sym_name = "s_i4_even"
// MINPROG: initial_value = #flow.parameter.named<""::"mask"> : tensor<4xi1>

"util.global"() <{initial_value = dense<[1, 2, 3, 4, 5]> : tensor<5xi4>, sym_name = "w_i4", sym_visibility = "private", type = tensor<5xi4>}> : () -> ()
"util.global"() <{initial_value = dense<5> : tensor<4xi4>, sym_name = "s_i4_even", sym_visibility = "private", type = tensor<4xi4>}> : () -> ()
"util.global"() <{initial_value = dense<5> : tensor<3xi4>, sym_name = "s_i4_odd", sym_visibility = "private", type = tensor<3xi4>}> : () -> ()
"util.global"() <{initial_value = dense<[true, false, true, true]> : tensor<4xi1>, sym_name = "mask", sym_visibility = "private", type = tensor<4xi1>}> : () -> ()
"util.global"() <{initial_value = dense<true> : tensor<i1>, sym_name = "s_i1", sym_visibility = "private", type = tensor<i1>}> : () -> ()
"util.global"() <{initial_value = dense<[1.0, 2.0, 3.0]> : tensor<3xf16>, sym_name = "h", sym_visibility = "private", type = tensor<3xf16>}> : () -> ()
"util.global"() <{initial_value = dense<11.0> : tensor<2xf32>, sym_name = "s_f32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
"util.global"() <{initial_value = dense<11.0> : tensor<2xf32>, is_mutable, sym_name = "m_f32", sym_visibility = "private", type = tensor<2xf32>}> : () -> ()
"util.global"() <{initial_value = dense<(1.0, 2.0)> : tensor<2xcomplex<f32>>, sym_name = "c64", sym_visibility = "private", type = tensor<2xcomplex<f32>>}> : () -> ()
"util.global"() <{initial_value = dense<[1, -1]> : tensor<2xi33>, sym_name = "i33", sym_visibility = "private", type = tensor<2xi33>}> : () -> ()
"util.global"() <{initial_value = dense<> : tensor<0xf32>, sym_name = "e", sym_visibility = "private", type = tensor<0xf32>}> : () -> ()
"util.global"() <{initial_value = dense<[1.0, -2.0]> : tensor<2xbf16>, sym_name = "bf", sym_visibility = "private", type = tensor<2xbf16>}> : () -> ()
"util.global"() <{initial_value = dense<[1.0, 2.0]> : tensor<2xf8E4M3FN>, sym_name = "f8", sym_visibility = "private", type = tensor<2xf8E4M3FN>}> : () -> ()
"util.global"() <{initial_value = dense<[7]> : tensor<1xi8>, sym_name = "small", sym_visibility = "private", type = tensor<1xi8>}> : () -> ()
ml_program.global private @mlp(dense<[1, 2, 3]> : tensor<3xi8>) : tensor<3xi8>
func.func @f() -> tensor<2xi32> {
  %0 = arith.constant dense<[1, 2]> : tensor<2xi32>
  return %0 : tensor<2xi32>
}
