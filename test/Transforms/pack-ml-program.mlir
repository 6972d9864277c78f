// REQUIRES: mlir
// RUN: vmpack-opt %s --allow-unregistered-dialect --vmpack-pack-subbyte-constants | FileCheck %s
// RUN: vmpack-opt %s --allow-unregistered-dialect --vmpack-pack-subbyte-constants | vmpack-opt --allow-unregistered-dialect | FileCheck %s
// RUN: vmpack-opt %s --allow-unregistered-dialect --vmpack-pack-subbyte-constants --canonicalize | FileCheck %s --check-prefix=CANON

// ml_program.global: the global holds packed bytes and records its logical
// type; loads are bitcast to the logical type, stores from it.

// CHECK: ml_program.global private @weights(dense_resource<weights> : tensor<3xi8>) : tensor<3xi8> {vmpack.logical_type = tensor<5xi4>}
ml_program.global private @weights(dense<[1, 2, 3, 4, 5]> : tensor<5xi4>) : tensor<5xi4>
// CHECK: ml_program.global private mutable @state(dense_resource<state> : tensor<2xi8>) : tensor<2xi8> {vmpack.logical_type = tensor<5xi2>}
ml_program.global private mutable @state(dense<[-1, 0, 1, -2, 1]> : tensor<5xi2>) : tensor<5xi2>
// A global nobody loads is packed too: its logical type is on the global.
// CHECK: ml_program.global public @unused(dense_resource<unused> : tensor<3xi8>) : tensor<3xi8> {vmpack.logical_type = tensor<2x4xi3>}
ml_program.global public @unused(dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> : tensor<2x4xi3>) : tensor<2x4xi3>
// A splat initial value.
// CHECK: ml_program.global private @mask(dense_resource<mask> : tensor<2xi8>) : tensor<2xi8> {vmpack.logical_type = tensor<10xi1>}
ml_program.global private @mask(dense<true> : tensor<10xi1>) : tensor<10xi1>

// Not packed: whole-byte elements, no initial value, a dynamic global type.
// CHECK: ml_program.global private @bytes(dense<[1, 2]> : tensor<2xi8>) : tensor<2xi8>{{$}}
ml_program.global private @bytes(dense<[1, 2]> : tensor<2xi8>) : tensor<2xi8>
// CHECK: ml_program.global private mutable @uninit : tensor<4xi4>{{$}}
ml_program.global private mutable @uninit : tensor<4xi4>
// CHECK: ml_program.global private @dynamic(dense<[1, 2]> : tensor<2xi4>) : tensor<?xi4>{{$}}
ml_program.global private @dynamic(dense<[1, 2]> : tensor<2xi4>) : tensor<?xi4>

// A global some other op refers to stays as it is.
// CHECK: ml_program.global private @foreign(dense<[1, 2]> : tensor<2xi4>) : tensor<2xi4>{{$}}
ml_program.global private @foreign(dense<[1, 2]> : tensor<2xi4>) : tensor<2xi4>
"test.use"() {global = @foreign} : () -> ()

// CHECK-LABEL: func.func @uses
// CHECK: %[[W:.*]] = ml_program.global_load_const @weights : tensor<3xi8>
// CHECK-NEXT: %[[WL:.*]] = vmpack.bitcast %[[W]] : tensor<3xi8> -> tensor<5xi4>
// CHECK: %[[S:.*]] = ml_program.global_load @state : tensor<2xi8>
// CHECK-NEXT: %[[SL:.*]] = vmpack.bitcast %[[S]] : tensor<2xi8> -> tensor<5xi2>
// CHECK: %[[NEW:.*]] = "test.update"(%[[SL]]) : (tensor<5xi2>) -> tensor<5xi2>
// CHECK-NEXT: %[[NS:.*]] = vmpack.bitcast %[[NEW]] : tensor<5xi2> -> tensor<2xi8>
// CHECK-NEXT: ml_program.global_store @state = %[[NS]] : tensor<2xi8>
// CHECK: return %[[WL]], %[[WL]], %[[SL]]
func.func @uses() -> (tensor<5xi4>, tensor<5xi4>, tensor<5xi2>) {
  %w = ml_program.global_load_const @weights : tensor<5xi4>
  %s = ml_program.global_load @state : tensor<5xi2>
  %n = "test.update"(%s) : (tensor<5xi2>) -> tensor<5xi2>
  ml_program.global_store @state = %n : tensor<5xi2>
  return %w, %w, %s : tensor<5xi4>, tensor<5xi4>, tensor<5xi2>
}

// The graph forms of load and store, inside an ml_program.subgraph.
// CHECK-LABEL: ml_program.subgraph private @graph
// CHECK: %[[V:.*]], %[[T:.*]] = ml_program.global_load_graph @state ordering(() -> !ml_program.token) : tensor<2xi8>
// CHECK-NEXT: %[[VL:.*]] = vmpack.bitcast %[[V]] : tensor<2xi8> -> tensor<5xi2>
// CHECK: %[[VS:.*]] = vmpack.bitcast %[[VL]] : tensor<5xi2> -> tensor<2xi8>
// CHECK-NEXT: ml_program.global_store_graph @state = %[[VS]] ordering(%[[T]] -> !ml_program.token) : tensor<2xi8>
ml_program.subgraph private @graph() -> tensor<5xi2> {
  %v, %t = ml_program.global_load_graph @state ordering(() -> !ml_program.token) : tensor<5xi2>
  %t2 = ml_program.global_store_graph @state = %v ordering(%t -> !ml_program.token) : tensor<5xi2>
  ml_program.output %v : tensor<5xi2>
}

// CHECK:      dialect_resources: {
// CHECK-NEXT:   builtin: {
// CHECK-NEXT:     weights: "0x10000000214305",
// CHECK-NEXT:     state: "0x100000009301",
// CHECK-NEXT:     unused: "0x1000000088C6FA",
// CHECK-NEXT:     mask: "0x10000000FF03"
// CHECK-NEXT:   }
// CHECK-NEXT: }

// A load bitcast straight back for a store folds away; the rest stays.
// (Canonicalization also drops the unused global_store_graph, upstream.)
// CANON-LABEL: func.func @uses
// CANON: ml_program.global_load_const @weights : tensor<3xi8>
// CANON: vmpack.bitcast %{{.*}} : tensor<3xi8> -> tensor<5xi4>
// CANON-LABEL: ml_program.subgraph private @graph
// CANON: %[[V:.*]], %[[T:.*]] = ml_program.global_load_graph @state
// CANON-NEXT: %[[VL:.*]] = vmpack.bitcast %[[V]] : tensor<2xi8> -> tensor<5xi2>
// CANON-NEXT: ml_program.output %[[VL]]
