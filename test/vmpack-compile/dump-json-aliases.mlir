// REQUIRES: mlir, jsonschema
// A module with aliases (constants sharing one stored segment) and a
// program: its vmpack-dump --json is valid against
// docs/vmpack-dump.schema.json, each alias naming its target
// (docs/dump-json.md), and a copy whose alias names no tensor is rejected.
// RUN: rm -rf %t && mkdir -p %t
// RUN: vmpack-compile %s -o %t/m.vmpk
// RUN: vmpack-dump --json %t/m.vmpk > %t/m.json
// RUN: cd %t && %jsonschema_python %S/../vmpack-dump/Inputs/check_schema.py %vmpack_src/docs/vmpack-dump.schema.json m.json | FileCheck %s
// CHECK: m.json: valid vmpk, 1 files, 2 tensors, 2 aliases, 0 metadata
// RUN: %python -c "import json,sys; d=json.load(open(sys.argv[1])); d['aliases'][0]['target']='nothing'; json.dump(d, open(sys.argv[2],'w'))" %t/m.json %t/bad.json
// RUN: cd %t && %jsonschema_python %S/../vmpack-dump/Inputs/check_schema.py --reject %vmpack_src/docs/vmpack-dump.schema.json bad.json | FileCheck %s --check-prefix=BAD
// BAD: bad.json: rejected: alias 'as_ui8': no tensor 'nothing'
// RUN: cd %t && %jsonschema_python %S/../vmpack-dump/Inputs/check_schema.py --damage %vmpack_src/docs/vmpack-dump.schema.json m.json | FileCheck %s --check-prefix=DAMAGE
// DAMAGE-NOT: FAIL
// DAMAGE: m.json: vmpk, {{[1-9][0-9]*}} damaged copies rejected

module @aliases {
  ml_program.global private @as_si8(dense_resource<_int8> : tensor<4xsi8>) : tensor<4xsi8>
  ml_program.global private @as_ui8(dense_resource<_int8> : tensor<4xui8>) : tensor<4xui8>
  ml_program.global private @c1(dense<[1, 2, 3]> : tensor<3xi4>) : tensor<3xi4>
  ml_program.global private @c2(dense<[1, 2, 3]> : tensor<3xi4>) : tensor<3xi4>
}
{-# dialect_resources: { builtin: {
  _int8: "0x0800000080FF327F"
} } #-}
