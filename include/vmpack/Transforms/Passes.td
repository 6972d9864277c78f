//===- Passes.td - vmpack passes ---------------------------*- tablegen -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

#ifndef VMPACK_TRANSFORMS_PASSES_TD
#define VMPACK_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def PackSubByteConstantsPass
    : Pass<"vmpack-pack-subbyte-constants", "::mlir::ModuleOp"> {
  let summary = "Store sub-byte constants as packed byte blobs";
  let description = [{
    Rewrites every constant whose element width W is not a multiple of 8
    (i1 ... i7, i9 ..., f4E2M1FN, f6*, tf32, complex of those) into packed
    byte storage (docs/packing.md, encoding `packed`) held in a
    `dense_resource` blob over a 1-D `tensor<Nxi8>`, keeping the logical
    type:

    | op | becomes |
    |---|---|
    | `arith.constant` (tensor), `tosa.const` | an i8 constant carrying `vmpack.logical_type`, then a `vmpack.bitcast` to the logical type that replaces every use |
    | `ml_program.global` | type `tensor<Nxi8>` and `vmpack.logical_type`; each `global_load`, `global_load_const`, `global_load_graph` gets a bitcast to the logical type after it, each `global_store`, `global_store_graph` one to the storage type before it |
    | `memref.global` | type `memref<Nxi8>` (memory space kept) and `vmpack.logical_type`, only when no `memref.get_global` uses it: there is no memref form of `vmpack.bitcast` |

    Blobs are 16-byte aligned. The payload may be `dense<...>` or
    `dense_resource<...>` in MLIR's storage layout (for i1 either a bitmask
    or one byte per element, told apart by size). A missing or `__elided__`
    blob, or one of the wrong size, is an error at the op and fails the
    pass, after every such op is reported.

    Resource keys are the global's symbol name, or `<S>.cst<k>` for an
    `arith.constant` or `tosa.const`: S is the nearest enclosing symbol (the
    function; `module` when there is none) and k counts the constants packed
    in S, in walk order. MLIR makes a taken key unique. Constants that
    already carry `vmpack.logical_type` are left alone, so the pass is
    idempotent.

    Ops of other dialects (registered or not) are never changed, even when
    they hold sub-byte constants: their verifiers, which may live in another
    tool, expect the attribute's type as it is. The pass counts them in a
    remark. `vmpack-compile` still stores their constants, packed.
  }];

  let options = [
    Option<"minElements", "min-elements", "int64_t", /*default=*/"1",
           "Only pack constants with at least this many elements">,
    ListOption<"ops", "ops", "std::string",
               "Op kinds to pack, from arith.constant, tosa.const, "
               "ml_program.global, memref.global (default: all)">
  ];

  let dependentDialects = ["::mlir::vmpack_compiler::VMPackDialect"];
}

def HoistConstantsPass : Pass<"vmpack-hoist-constants", "::mlir::ModuleOp"> {
  let summary = "Move large tensor constants into ml_program globals";
  let description = [{
    Replaces every `arith.constant` of a statically shaped tensor with at
    least `min-elements` elements by an `ml_program.global_load_const` of a
    new private, immutable `ml_program.global` holding the value, named
    `@<S>.cst<k>`: S is the nearest enclosing symbol (the function;
    `module` when there is none) and k counts the constants hoisted from S,
    the name vmpack-compile gives such a constant when it is not hoisted
    (the same whenever every constant of S is hoisted). The symbol table
    renames a name that is taken. Globals are what a module archive stores as segments;
    running this before --vmpack-pack-subbyte-constants packs them there.
    A constant that already carries `vmpack.logical_type` moves with it.
  }];

  let options = [
    Option<"minElements", "min-elements", "int64_t", /*default=*/"1024",
           "Only hoist constants with at least this many elements">
  ];

  let dependentDialects = ["::mlir::ml_program::MLProgramDialect"];
}

#endif // VMPACK_TRANSFORMS_PASSES_TD
