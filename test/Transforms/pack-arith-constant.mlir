// REQUIRES: mlir
// RUN: vmpack-opt %s --allow-unregistered-dialect --vmpack-pack-subbyte-constants | FileCheck %s
// The output verifies on its own and stays valid through canonicalization.
// RUN: vmpack-opt %s --allow-unregistered-dialect --vmpack-pack-subbyte-constants | vmpack-opt --allow-unregistered-dialect | FileCheck %s
// RUN: vmpack-opt %s --allow-unregistered-dialect --vmpack-pack-subbyte-constants --canonicalize --cse | FileCheck %s --check-prefix=CANON

// arith.constant: packed bytes (docs/packing.md test vectors) in a
// dense_resource blob, 16-byte aligned (prefix 0x10000000), with the
// logical type on the constant and a vmpack.bitcast for every use.

// CHECK-LABEL: func.func @vectors
// CHECK: %[[C0:.*]] = arith.constant {vmpack.logical_type = tensor<5xi4>} dense_resource<vectors.cst0> : tensor<3xi8>
// CHECK-NEXT: %[[B0:.*]] = vmpack.bitcast %[[C0]] : tensor<3xi8> -> tensor<5xi4>
// CHECK: %[[C1:.*]] = arith.constant {vmpack.logical_type = tensor<10xi1>} dense_resource<vectors.cst1> : tensor<2xi8>
// CHECK-NEXT: %[[B1:.*]] = vmpack.bitcast %[[C1]] : tensor<2xi8> -> tensor<10xi1>
// CHECK: arith.constant {vmpack.logical_type = tensor<8xi3>} dense_resource<vectors.cst2> : tensor<3xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<5xi2>} dense_resource<vectors.cst3> : tensor<2xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<6xi5>} dense_resource<vectors.cst4> : tensor<4xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<3xi12>} dense_resource<vectors.cst5> : tensor<5xi8>
// CHECK: return %[[B0]], %[[B1]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :
func.func @vectors() -> (tensor<5xi4>, tensor<10xi1>, tensor<8xi3>,
                         tensor<5xi2>, tensor<6xi5>, tensor<3xi12>) {
  %0 = arith.constant dense<[1, 2, 3, 4, 5]> : tensor<5xi4>
  %1 = arith.constant dense<[true, false, true, true, false, false, false, false, true, true]> : tensor<10xi1>
  %2 = arith.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi3>
  %3 = arith.constant dense<[-1, 0, 1, -2, 1]> : tensor<5xi2>
  %4 = arith.constant dense<[2, 3, 4, 5, 6, 7]> : tensor<6xi5>
  %5 = arith.constant dense<[2748, 291, 4095]> : tensor<3xi12>
  return %0, %1, %2, %3, %4, %5 : tensor<5xi4>, tensor<10xi1>, tensor<8xi3>,
                                  tensor<5xi2>, tensor<6xi5>, tensor<3xi12>
}

// Multi-dimensional tensors pack in row-major order; splats pack as the
// expanded tensor; dirty high bits in MLIR's storage are dropped.
// CHECK-LABEL: func.func @shapes_and_splats
// CHECK: arith.constant {vmpack.logical_type = tensor<2x3xi4>} dense_resource<shapes_and_splats.cst0> : tensor<3xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<3xi4>} dense_resource<shapes_and_splats.cst1> : tensor<2xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<10xi1>} dense_resource<shapes_and_splats.cst2> : tensor<2xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<7xi3>} dense_resource<shapes_and_splats.cst3> : tensor<3xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<1x1xi4>} dense_resource<shapes_and_splats.cst4> : tensor<1xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<3xi4>} dense_resource<shapes_and_splats.cst5> : tensor<2xi8>
func.func @shapes_and_splats() -> (tensor<2x3xi4>, tensor<3xi4>, tensor<10xi1>,
                                   tensor<7xi3>, tensor<1x1xi4>, tensor<3xi4>) {
  %0 = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi4>
  %1 = arith.constant dense<-1> : tensor<3xi4>
  %2 = arith.constant dense<true> : tensor<10xi1>
  %3 = arith.constant dense<1> : tensor<7xi3>
  %4 = arith.constant dense<9> : tensor<1x1xi4>
  %5 = arith.constant dense<"0xF37EA1"> : tensor<3xi4>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xi4>, tensor<3xi4>, tensor<10xi1>,
                                  tensor<7xi3>, tensor<1x1xi4>, tensor<3xi4>
}

// Floats narrower than a byte or not a multiple of 8 bits wide, and complex
// numbers (real then imaginary, each a scalar of the element type).
// CHECK-LABEL: func.func @floats_and_complex
// CHECK: arith.constant {vmpack.logical_type = tensor<4xf4E2M1FN>} dense_resource<floats_and_complex.cst0> : tensor<2xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<4xf6E2M3FN>} dense_resource<floats_and_complex.cst1> : tensor<3xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<2xtf32>} dense_resource<floats_and_complex.cst2> : tensor<5xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<3xcomplex<i4>>} dense_resource<floats_and_complex.cst3> : tensor<3xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<2xcomplex<i1>>} dense_resource<floats_and_complex.cst4> : tensor<1xi8>
// CHECK: arith.constant {vmpack.logical_type = tensor<3xcomplex<i1>>} dense_resource<floats_and_complex.cst5> : tensor<1xi8>
func.func @floats_and_complex() -> (tensor<4xf4E2M1FN>, tensor<4xf6E2M3FN>,
    tensor<2xtf32>, tensor<3xcomplex<i4>>, tensor<2xcomplex<i1>>,
    tensor<3xcomplex<i1>>) {
  %0 = arith.constant dense<[0.5, 6.0, -1.0, 3.0]> : tensor<4xf4E2M1FN>
  %1 = arith.constant dense<[0x01, 0x3F, 0x20, 0x15]> : tensor<4xf6E2M3FN>
  %2 = arith.constant dense<[1.0, -2.0]> : tensor<2xtf32>
  %3 = arith.constant dense<[(1, 2), (3, 4), (5, 6)]> : tensor<3xcomplex<i4>>
  %4 = arith.constant dense<[(true, false), (true, true)]> : tensor<2xcomplex<i1>>
  %5 = arith.constant dense<(true, false)> : tensor<3xcomplex<i1>>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf4E2M1FN>, tensor<4xf6E2M3FN>,
      tensor<2xtf32>, tensor<3xcomplex<i4>>, tensor<2xcomplex<i1>>,
      tensor<3xcomplex<i1>>
}

// Whole-byte element types, vectors (vmpack.bitcast is tensor-only),
// scalars and empty tensors stay as they are.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: arith.constant dense<[1, 2]> : tensor<2xi8>
// CHECK-NEXT: arith.constant dense<[1, 2]> : tensor<2xi16>
// CHECK-NEXT: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xbf16>
// CHECK-NEXT: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf8E4M3FN>
// CHECK-NEXT: arith.constant dense<[1, 2]> : vector<2xi4>
// CHECK-NEXT: arith.constant 3 : i4
// CHECK-NEXT: arith.constant dense<> : tensor<0xi4>
// CHECK-NOT: vmpack
func.func @untouched() {
  %0 = arith.constant dense<[1, 2]> : tensor<2xi8>
  %1 = arith.constant dense<[1, 2]> : tensor<2xi16>
  %2 = arith.constant dense<[1.0, 2.0]> : tensor<2xbf16>
  %3 = arith.constant dense<[1.0, 2.0]> : tensor<2xf8E4M3FN>
  %4 = arith.constant dense<[1, 2]> : vector<2xi4>
  %5 = arith.constant 3 : i4
  %6 = arith.constant dense<> : tensor<0xi4>
  "test.keep"(%0, %1, %2, %3, %4, %5, %6) : (tensor<2xi8>, tensor<2xi16>, tensor<2xbf16>, tensor<2xf8E4M3FN>, vector<2xi4>, i4, tensor<0xi4>) -> ()
  return
}

// A constant outside any named symbol gets the key `module.cst0`.
// CHECK: "test.region"() ({
// CHECK-NEXT: arith.constant {vmpack.logical_type = tensor<2xi4>} dense_resource<module.cst0> : tensor<1xi8>
"test.region"() ({
  %0 = arith.constant dense<[1, 2]> : tensor<2xi4>
  "test.keep"(%0) : (tensor<2xi4>) -> ()
}) : () -> ()

// CHECK:      dialect_resources: {
// CHECK-NEXT:   builtin: {
// CHECK-NEXT:     vectors.cst0: "0x10000000214305",
// CHECK-NEXT:     vectors.cst1: "0x100000000D03",
// CHECK-NEXT:     vectors.cst2: "0x1000000088C6FA",
// CHECK-NEXT:     vectors.cst3: "0x100000009301",
// CHECK-NEXT:     vectors.cst4: "0x100000006290620E",
// CHECK-NEXT:     vectors.cst5: "0x10000000BC3A12FF0F",
// CHECK-NEXT:     shapes_and_splats.cst0: "0x10000000214365",
// CHECK-NEXT:     shapes_and_splats.cst1: "0x10000000FF0F",
// CHECK-NEXT:     shapes_and_splats.cst2: "0x10000000FF03",
// CHECK-NEXT:     shapes_and_splats.cst3: "0x10000000499204",
// CHECK-NEXT:     shapes_and_splats.cst4: "0x1000000009",
// CHECK-NEXT:     shapes_and_splats.cst5: "0x10000000E301",
// CHECK-NEXT:     floats_and_complex.cst0: "0x10000000715A",
// CHECK-NEXT:     floats_and_complex.cst1: "0x10000000C10F56",
// CHECK-NEXT:     floats_and_complex.cst2: "0x1000000000FC010030",
// CHECK-NEXT:     floats_and_complex.cst3: "0x10000000214365",
// CHECK-NEXT:     floats_and_complex.cst4: "0x100000000D",
// CHECK-NEXT:     floats_and_complex.cst5: "0x1000000015",
// CHECK-NEXT:     module.cst0: "0x1000000021"
// CHECK-NEXT:   }
// CHECK-NEXT: }

// Canonicalization keeps the packed constants and the bitcasts (folding a
// bitcast of a constant would unpack it) and the logical types.
// CANON-LABEL: func.func @vectors
// CANON-DAG: arith.constant {vmpack.logical_type = tensor<5xi4>} dense_resource<vectors.cst0> : tensor<3xi8>
// CANON-DAG: vmpack.bitcast %{{.*}} : tensor<3xi8> -> tensor<5xi4>
// CANON: vectors.cst0: "0x10000000214305"
