// REQUIRES: mlir
// RUN: vmpack-opt %s --allow-unregistered-dialect --vmpack-pack-subbyte-constants | FileCheck %s
// RUN: vmpack-opt %s --allow-unregistered-dialect --vmpack-pack-subbyte-constants | vmpack-opt --allow-unregistered-dialect | FileCheck %s

// memref.global: the global becomes memref<Nxi8> with its logical type in
// vmpack.logical_type, but only when no memref.get_global takes its address.
// get_global must return the global's exact type and vmpack.bitcast is
// tensor-only; a memref.view of the bytes would be lowered with MLIR's one
// byte per sub-byte element, not the packed layout.

// CHECK: memref.global "private" constant @packed : memref<4xi8> = dense_resource<packed> {vmpack.logical_type = memref<6xi5>}
memref.global "private" constant @packed : memref<6xi5> = dense<[2, 3, 4, 5, 6, 7]>
// Memory space and alignment are kept.
// CHECK: memref.global constant @aligned : memref<2xi8, 1> = dense_resource<aligned> {alignment = 64 : i64, vmpack.logical_type = memref<10xi1, 1>}
memref.global constant @aligned : memref<10xi1, 1> = dense<[true, false, true, true, false, false, false, false, true, true]> {alignment = 64}
// CHECK: memref.global "private" constant @splat : memref<2xi8> = dense_resource<splat> {vmpack.logical_type = memref<3xi4>}
memref.global "private" constant @splat : memref<3xi4> = dense<-1>

// Not packed: taken by memref.get_global, uninitialized, external, whole
// bytes.
// CHECK: memref.global "private" constant @used : memref<2xi4> = dense<[1, 2]>{{$}}
memref.global "private" constant @used : memref<2xi4> = dense<[1, 2]>
// CHECK: memref.global "private" @uninit : memref<4xi4> = uninitialized{{$}}
memref.global "private" @uninit : memref<4xi4> = uninitialized
// CHECK: memref.global @external : memref<4xi4>{{$}}
memref.global @external : memref<4xi4>
// CHECK: memref.global "private" constant @bytes : memref<2xi8> = dense<[1, 2]>{{$}}
memref.global "private" constant @bytes : memref<2xi8> = dense<[1, 2]>

// CHECK: memref.global "private" constant @foreign : memref<2xi4> = dense<[1, 2]>{{$}}
memref.global "private" constant @foreign : memref<2xi4> = dense<[1, 2]>
"test.use"() {global = @foreign} : () -> ()

// CHECK-LABEL: func.func @f
// CHECK-NEXT: memref.get_global @used : memref<2xi4>
func.func @f() -> memref<2xi4> {
  %0 = memref.get_global @used : memref<2xi4>
  return %0 : memref<2xi4>
}

// CHECK:      dialect_resources: {
// CHECK-NEXT:   builtin: {
// CHECK-NEXT:     packed: "0x100000006290620E",
// CHECK-NEXT:     aligned: "0x100000000D03",
// CHECK-NEXT:     splat: "0x10000000FF0F"
// CHECK-NEXT:   }
// CHECK-NEXT: }
