// REQUIRES: mlir
// tosa.const is packed like arith.constant; ops whose semantics the pass
// does not know (here IREE's, unregistered) are left as they are and
// counted in a remark. vmpack-compile then stores both.
// RUN: vmpack-opt --allow-unregistered-dialect %s --vmpack-pack-subbyte-constants 2>&1 | FileCheck %s
// RUN: vmpack-opt --allow-unregistered-dialect %s '--vmpack-pack-subbyte-constants=ops=arith.constant' 2>&1 | FileCheck %s --check-prefix=NOTOSA
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-opt --allow-unregistered-dialect %s --vmpack-pack-subbyte-constants -o %t/packed.mlir
// RUN: vmpack-compile %t/packed.mlir -o %t/packed.vmpk
// RUN: vmpack-example %t/packed.vmpk main.cst0 | FileCheck %s --check-prefix=TOSA-VALUES
// RUN: vmpack-example %t/packed.vmpk w | FileCheck %s --check-prefix=UTIL-VALUES

// CHECK: remark: vmpack-pack-subbyte-constants: left 2 op(s) unchanged whose sub-byte constants it does not know the meaning of (e.g. 'util.global')
// CHECK: "util.global"() <{initial_value = dense<[1, 2, 3]> : tensor<3xi4>, sym_name = "w", type = tensor<3xi4>}>
// CHECK: %[[RAW:.*]] = "tosa.const"() <{values = dense_resource<main.cst0> : tensor<2xi8>}> {vmpack.logical_type = tensor<4xi4>} : () -> tensor<2xi8>
// CHECK: vmpack.bitcast %[[RAW]] : tensor<2xi8> -> tensor<4xi4>
// CHECK: "flow.tensor.constant"() <{value = dense<[1, -1]> : tensor<2xi4>}>
// NOTOSA: "tosa.const"() <{values = dense<[1, -2, 3, -4]> : tensor<4xi4>}> : () -> tensor<4xi4>
// TOSA-VALUES: main.cst0[0:4] = 1 -2 3 -4
// UTIL-VALUES: w[0:3] = 1 2 3

module {
  "util.global"() <{initial_value = dense<[1, 2, 3]> : tensor<3xi4>, sym_name = "w", type = tensor<3xi4>}> : () -> ()
  func.func @main() -> (tensor<4xi4>, tensor<2xi4>) {
    %0 = "tosa.const"() <{values = dense<[1, -2, 3, -4]> : tensor<4xi4>}> : () -> tensor<4xi4>
    %1 = "flow.tensor.constant"() <{value = dense<[1, -1]> : tensor<2xi4>}> : () -> tensor<2xi4>
    return %0, %1 : tensor<4xi4>, tensor<2xi4>
  }
}
