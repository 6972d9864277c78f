/*===- vmpack.h - The vmpack runtime: a C API for module archives --------===*
 * SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
 *
 * Opens a module archive (docs/format.md) by mapping it, by reading it into
 * memory, or from a caller's buffer, verifies it (at once or lazily), lists
 * its segments, hands out zero-copy views of their stored bytes, and unpacks
 * elements into int8/int16/int32/float32 arrays. Plain C11; no MLIR or
 * LLVM anywhere.
 *
 * The same calls open an IREE parameter archive (.irpa, docs/irpa.md),
 * recognised by its first bytes "IRPA". Its entries appear as segments
 * without types: see vmpack_segment_kind_t. They also open safetensors
 * and GGUF files (docs/interop.md), recognised by their first bytes: their
 * tensors are typed segments, their metadata is listed by
 * vmpack_module_metadata_entry, and a GGUF block-quantized tensor is a
 * segment of ui8 bytes whose ggml type vmpack_segment_foreign_info gives.
 *
 * Errors: every fallible call returns a vmpack_status_t. On failure, a
 * message saying what went wrong and where is available from
 * vmpack_last_error() on the same thread until its next failing call.
 * Handles are opaque; nothing throws across this API: a failed allocation
 * in any call is VMPACK_ERROR_OUT_OF_MEMORY.
 *
 * Thread safety: a module may be used from many threads at once; only
 * vmpack_module_close must not race with other calls on the same module.
 *
 *===---------------------------------------------------------------------===*/

#ifndef VMPACK_VMPACK_H
#define VMPACK_VMPACK_H

#include <stddef.h>
#include <stdint.h>

/* Marks the functions libvmpack exports. The shared library is built with
 * hidden visibility, so these are its only dynamic symbols. */
#if defined(__GNUC__) || defined(__clang__)
#define VMPACK_API __attribute__((visibility("default")))
#else
#define VMPACK_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vmpack_status {
  VMPACK_OK = 0,
  VMPACK_ERROR_INVALID_ARGUMENT = 1, /* a null pointer, bad enum, ...      */
  VMPACK_ERROR_IO = 2,               /* cannot open, stat or map the file  */
  VMPACK_ERROR_FORMAT = 3,           /* not a valid module archive         */
  VMPACK_ERROR_CHECKSUM = 4,         /* full verification found damage     */
  VMPACK_ERROR_NOT_FOUND = 5,        /* no segment with that name          */
  VMPACK_ERROR_OUT_OF_RANGE = 6,     /* index or element range too large   */
  VMPACK_ERROR_UNSUPPORTED = 7,      /* conversion not defined for a type  */
  VMPACK_ERROR_BUFFER_TOO_SMALL = 8, /* destination smaller than needed    */
  VMPACK_ERROR_OUT_OF_MEMORY = 9,
  VMPACK_ERROR_INTERNAL = 10
} vmpack_status_t;

/* A fixed name for a status code ("VMPACK_ERROR_FORMAT", ...). */
VMPACK_API const char *vmpack_status_name(vmpack_status_t status);

/* The message of this thread's last failed call ("" if none). The pointer
 * stays valid until this thread's next call into the API. */
VMPACK_API const char *vmpack_last_error(void);

/* Scalar kinds: the values of docs/format.md (vmpack::ScalarKind). */
typedef enum vmpack_scalar_kind {
  VMPACK_SCALAR_SIGNLESS_INT = 0,
  VMPACK_SCALAR_SIGNED_INT = 1,
  VMPACK_SCALAR_UNSIGNED_INT = 2,
  VMPACK_SCALAR_INDEX = 3,
  VMPACK_SCALAR_F4E2M1FN = 10,
  VMPACK_SCALAR_F6E2M3FN = 11,
  VMPACK_SCALAR_F6E3M2FN = 12,
  VMPACK_SCALAR_F8E5M2 = 13,
  VMPACK_SCALAR_F8E4M3 = 14,
  VMPACK_SCALAR_F8E4M3FN = 15,
  VMPACK_SCALAR_F8E5M2FNUZ = 16,
  VMPACK_SCALAR_F8E4M3FNUZ = 17,
  VMPACK_SCALAR_F8E4M3B11FNUZ = 18,
  VMPACK_SCALAR_F8E3M4 = 19,
  VMPACK_SCALAR_F8E8M0FNU = 20,
  VMPACK_SCALAR_BF16 = 21,
  VMPACK_SCALAR_F16 = 22,
  VMPACK_SCALAR_TF32 = 23,
  VMPACK_SCALAR_F32 = 24,
  VMPACK_SCALAR_F64 = 25,
  VMPACK_SCALAR_F80 = 26,
  VMPACK_SCALAR_F128 = 27
} vmpack_scalar_kind_t;

/* Storage encodings of docs/packing.md. */
typedef enum vmpack_encoding {
  VMPACK_ENCODING_PACKED = 0,
  VMPACK_ENCODING_WORD = 1,
  VMPACK_ENCODING_BYTE = 2,
  VMPACK_ENCODING_NONE = 3 /* untyped bytes (.irpa entries) */
} vmpack_encoding_t;

/* The kind of file a module was opened from. */
typedef enum vmpack_container {
  VMPACK_CONTAINER_VMPK = 0,        /* module archive (docs/format.md) */
  VMPACK_CONTAINER_IRPA = 1,        /* IREE parameters (docs/irpa.md)  */
  VMPACK_CONTAINER_SAFETENSORS = 2, /* docs/interop.md                 */
  VMPACK_CONTAINER_GGUF = 3         /* docs/interop.md                 */
} vmpack_container_t;

/* What a segment is. A .vmpk segment is typed. An .irpa entry carries no
 * element type, shape or encoding (the format has none, and vmpack does not
 * guess): its info has mlir_type = element_type = "", scalar_kind 0,
 * scalar_bits 0, is_complex 0, rank 0, shape NULL, element_count 0,
 * encoding VMPACK_ENCODING_NONE, checksum 0 (.irpa has no checksums),
 * source_kind VMPACK_SOURCE_DENSE, source_key "", source_alignment 0,
 * is_alias 0, and
 * alignment is the entry's minimum alignment (0: unspecified). */
typedef enum vmpack_segment_kind {
  VMPACK_SEGMENT_TYPED = 0,
  /* Bytes stored in the file: data, offset and length as for typed
   * segments. */
  VMPACK_SEGMENT_UNTYPED_DATA = 1,
  /* No stored bytes: `length` bytes of splat_pattern repeated; data is
   * NULL and offset 0. */
  VMPACK_SEGMENT_UNTYPED_SPLAT = 2
} vmpack_segment_kind_t;

typedef enum vmpack_source_kind {
  VMPACK_SOURCE_DENSE = 0,
  VMPACK_SOURCE_DENSE_RESOURCE = 1,
  VMPACK_SOURCE_PACKED_RESOURCE = 2
} vmpack_source_kind_t;

/* Destination types for unpacking. */
typedef enum vmpack_dtype {
  VMPACK_DTYPE_INT8 = 0,
  VMPACK_DTYPE_INT16 = 1,
  VMPACK_DTYPE_INT32 = 2,
  VMPACK_DTYPE_FLOAT32 = 3
} vmpack_dtype_t;

/* Everything about one segment. Pointers stay valid while the module is
 * open. Strings are NUL-terminated; names may contain NUL bytes, so their
 * lengths are given too. */
typedef struct vmpack_segment_info {
  const char *name;
  size_t name_length;
  const char *mlir_type;    /* e.g. "tensor<4096x4096xi4>"       */
  const char *element_type; /* MLIR spelling: "i4", "complex<f16>" */
  vmpack_scalar_kind_t scalar_kind;
  uint32_t scalar_bits; /* W                                  */
  int is_complex;       /* two scalars per element            */
  size_t rank;
  const int64_t *shape;
  uint64_t element_count; /* product of the shape               */
  vmpack_encoding_t encoding;
  const void *data; /* zero-copy view of the stored bytes */
  uint64_t offset;  /* absolute file offset of `data`     */
  uint64_t length;
  uint32_t alignment;
  uint32_t checksum; /* CRC-32 of the stored bytes         */
  vmpack_source_kind_t source_kind;
  const char *source_key;
  uint32_t source_alignment;
  /* An alias (format version 2): a constant with its own name, type and
   * source whose bytes are those of segment `alias_of`; `data`, `offset`,
   * `length`, `encoding`, `alignment` and `checksum` are that segment's. */
  int is_alias;
  size_t alias_of;
  /* Added for .irpa; after the fields above so that their layout is
   * unchanged. */
  vmpack_segment_kind_t kind;
  const uint8_t *splat_pattern;  /* splats: the pattern; else NULL      */
  uint32_t splat_pattern_length; /* splats: 1, 2, 4, 8 or 16; else 0    */
  const void *metadata;          /* .irpa: the entry's opaque metadata  */
  uint64_t metadata_length;      /* (NULL and 0 when it has none)       */
} vmpack_segment_info_t;

typedef struct vmpack_module vmpack_module_t;

/* Maps `path` read-only and performs the structural verification (time
 * proportional to the index, not the data). A .vmpk or an .irpa, by its
 * first bytes; an .irpa's offsets are all checked to lie inside the file
 * and their segments (docs/irpa.md, "Reading").
 *
 * Sharded sets open as one module (docs/format.md section 9,
 * docs/interop.md "Sharding") when `path` is the first file of the set:
 * a .vmpk shard NAME-00001-of-0000N.vmpk (vmpack.shard.* metadata), the
 * first file of a GGUF split (split.no 0, split.count N, named as
 * llama.cpp's gguf-split names it), or a safetensors index
 * NAME.safetensors.index.json or first shard
 * NAME-00001-of-0000N.safetensors. Every file is found, loaded (in the
 * load mode asked for), parsed and verified as a file opened alone, and
 * the files must agree: the count, each file's number, the segment counts
 * their keys or the index give, the module name of every .vmpk shard, and
 * no segment name twice; errors name the file. The module then has the
 * segments of all files in shard order, each pointing into its own file
 * (`offset` is within that file: vmpack_segment_file says which), and the
 * metadata of the whole: every key once in file order, without the set's
 * bookkeeping keys (vmpack.shard.*, split.*); a key with different values
 * in two files is an error. Container, name, producer, format version and
 * program are the first file's. Naming any other file of a set is refused
 * with VMPACK_ERROR_UNSUPPORTED, the message naming the first file; a set
 * cannot be read into a caller's buffer (VMPACK_ERROR_INVALID_ARGUMENT).
 *
 * A GGUF file (first bytes "GGUF") or a safetensors file (an 8-byte header
 * length, then '{') is parsed by the formats layer's readers, which check
 * every offset, length, shape and type (docs/interop.md, "Reading"); a
 * file named *.safetensors or *.gguf that is none of these formats gets
 * that format's error message. Their segments:
 *  - kind VMPACK_SEGMENT_TYPED, the element type of the interop table
 *    (docs/interop.md), encoding VMPACK_ENCODING_BYTE, or
 *    VMPACK_ENCODING_PACKED for sub-byte types (safetensors F4, F6_*, and
 *    the sub-byte integers stored as U8 with a "vmpack.type.NAME" metadata
 *    key, read back as their logical type);
 *  - a GGUF block-quantized tensor (Q4_0, Q4_K, IQ2_XS, ...): ui8, shape
 *    [length], byte encoding (its bytes, as a foreign .vmpk segment is;
 *    docs/format.md section 4.4), with its ggml type and logical shape
 *    from vmpack_segment_foreign_info;
 *  - data is the tensor's bytes in the file (no copy; unpacking reads them
 *    in place), offset absolute, checksum 0 (neither format has
 *    checksums), source_kind VMPACK_SOURCE_DENSE, source_key "";
 *  - alignment: GGUF's general.alignment (every tensor's offset is a
 *    multiple); safetensors declares none, so the largest power of two, at
 *    most 4096, that divides the tensor's offset. */
VMPACK_API vmpack_status_t
vmpack_module_open_file(const char *path, vmpack_module_t **out_module);

/* The same over [data, data + size), which must outlive the module and,
 * for a .vmpk, be 16-byte aligned (.irpa, safetensors and GGUF need no
 * alignment). Nothing is copied. A file that says it is one of a sharded
 * set of more than one file (a .vmpk with vmpack.shard.count > 1, a GGUF
 * with split.count > 1) is refused with VMPACK_ERROR_UNSUPPORTED: a set is
 * opened from the path of its first file. (A safetensors shard says
 * nothing about its set inside the file; only its name does.) */
VMPACK_API vmpack_status_t vmpack_module_open_memory(
    const void *data, size_t size, vmpack_module_t **out_module);

/* The files a module was opened from: 1 unless it is a sharded set, then
 * the set's files in shard order. A file's path ("" when opened from
 * memory; "" for `file` >= the count) is as found: the first file's as
 * given, the others beside it. */
VMPACK_API size_t vmpack_module_file_count(const vmpack_module_t *module);
VMPACK_API const char *vmpack_module_file_path(const vmpack_module_t *module,
                                               size_t file);
/* Which file (0-based, < vmpack_module_file_count) holds segment `index`:
 * the file its `data` points into and its `offset` counts from. */
VMPACK_API vmpack_status_t vmpack_segment_file(const vmpack_module_t *module,
                                               size_t index, size_t *out_file);

/* How a file's bytes get into memory. */
typedef enum vmpack_load_mode {
  /* READ on network, cluster and user-space file systems (NFS, SMB/CIFS,
   * FUSE, Ceph, 9p, Lustre, ...: statfs), MMAP elsewhere. The environment
   * variable VMPACK_LOAD_MODE=mmap|read|auto overrides this choice. */
  VMPACK_LOAD_AUTO = 0,
  /* Map the file read-only: nothing is copied; pages load on first touch. */
  VMPACK_LOAD_MMAP = 1,
  /* Read the whole file with large sequential reads into aligned memory,
   * computing its CRC-32 on the way: a full verification afterwards costs
   * almost nothing. */
  VMPACK_LOAD_READ = 2
} vmpack_load_mode_t;

/* How much is checked when opening. */
typedef enum vmpack_verify_mode {
  /* The structure only, as vmpack_module_open_file. */
  VMPACK_VERIFY_STRUCTURE = 0,
  /* Also every CRC, as vmpack_module_verify, before returning. */
  VMPACK_VERIFY_FULL = 1,
  /* The program's CRC when opening; each segment's CRC on its first
   * vmpack_segment_unpack or vmpack_segment_verify, once (concurrent first
   * calls wait for one check). A damaged segment fails every unpack with
   * VMPACK_ERROR_CHECKSUM; the others stay usable. Pointers from
   * vmpack_module_segment_info are not checked: call vmpack_segment_verify
   * before reading through them. */
  VMPACK_VERIFY_LAZY = 2
} vmpack_verify_mode_t;

typedef struct vmpack_open_options {
  size_t struct_size; /* sizeof(vmpack_open_options_t)                    */
  vmpack_load_mode_t load_mode;
  vmpack_verify_mode_t verify;
  /* For VMPACK_VERIFY_FULL of a mapped file, and for VMPACK_LOAD_READ (the
   * threads read the file's chunks in turn, each summing its CRCs); 0: one
   * per hardware thread. */
  unsigned threads;
  /* VMPACK_LOAD_READ only: memory to read the file into, 16-byte aligned
   * (segments are as aligned in memory as the buffer allows: their file
   * offsets are multiples of their alignment), at least the file's size,
   * outliving the module. Null: the library allocates it (64 KiB aligned)
   * and frees it on close. */
  void *buffer;
  size_t buffer_size;
} vmpack_open_options_t;

/* Defaults: VMPACK_LOAD_AUTO, VMPACK_VERIFY_STRUCTURE, all threads, no
 * buffer; sets struct_size. */
VMPACK_API void vmpack_open_options_init(vmpack_open_options_t *options);

/* vmpack_module_open_file with options (null: the defaults). */
VMPACK_API vmpack_status_t vmpack_module_open_file_with_options(
    const char *path, const vmpack_open_options_t *options,
    vmpack_module_t **out_module);

/* How the module's bytes were loaded: VMPACK_LOAD_MMAP or VMPACK_LOAD_READ
 * (a module opened from memory reports VMPACK_LOAD_READ). */
VMPACK_API vmpack_load_mode_t
vmpack_module_load_mode(const vmpack_module_t *module);

/* Checks one segment's CRC-32, once per module: later calls return the
 * first result. VMPACK_ERROR_CHECKSUM names the segment and its bytes. An
 * .irpa, safetensors or GGUF file has no checksums: its segments always
 * pass (and VMPACK_VERIFY_LAZY checks nothing). */
VMPACK_API vmpack_status_t vmpack_segment_verify(const vmpack_module_t *module,
                                                 size_t index);

/* Closes a module (null is allowed). */
VMPACK_API void vmpack_module_close(vmpack_module_t *module);

/* Full verification: the CRC-32 of every segment and of the program, all
 * padding zero, every byte of the file accounted for. Uses up to `threads`
 * threads (0: one per hardware thread). VMPACK_ERROR_CHECKSUM names the
 * damaged entry and its byte range.
 * An .irpa has no checksums: verification checks its layout instead (no
 * overlapping segments or entries, data at its minimum alignment) and
 * returns VMPACK_ERROR_FORMAT on a violation; damaged data goes unseen.
 * Neither have safetensors and GGUF: opening already checked their whole
 * layout (in range, no overlaps; safetensors: no holes), so verification
 * returns VMPACK_OK without reading the data, and damaged data goes unseen
 * (as with VMPACK_VERIFY_FULL, which is allowed for them). A sharded set
 * verifies each of its files so, in shard order; an error names the file.
 */
VMPACK_API vmpack_status_t vmpack_module_verify(const vmpack_module_t *module,
                                                unsigned threads);

/* VMPACK_CONTAINER_VMPK for a null module. */
VMPACK_API vmpack_container_t
vmpack_module_container(const vmpack_module_t *module);

/* Name and producer are "" for an .irpa, a safetensors and a GGUF file.
 * The format version of an .irpa is the archive's major version (0), of a
 * GGUF file its version (2 or 3), of a safetensors file 0 (it has none). */
VMPACK_API const char *vmpack_module_name(const vmpack_module_t *module);
VMPACK_API const char *vmpack_module_producer(const vmpack_module_t *module);
VMPACK_API uint32_t vmpack_module_format_version(const vmpack_module_t *module);

/* The program entry's bytes (MLIR bytecode; opaque to the runtime).
 * VMPACK_ERROR_UNSUPPORTED for an .irpa, safetensors or GGUF file, which
 * have no program. */
VMPACK_API vmpack_status_t vmpack_module_program(const vmpack_module_t *module,
                                                 const void **out_data,
                                                 uint64_t *out_length);

/* Constants: the stored segments first (indexes 0 .. n-1, in file order),
 * then the aliases. Every index below takes both. */
VMPACK_API size_t vmpack_module_segment_count(const vmpack_module_t *module);

VMPACK_API vmpack_status_t
vmpack_module_segment_info(const vmpack_module_t *module, size_t index,
                           vmpack_segment_info_t *out_info);

/* Finds a segment or alias by its exact name (`name_length` bytes). */
VMPACK_API vmpack_status_t
vmpack_module_find_segment(const vmpack_module_t *module, const char *name,
                           size_t name_length, size_t *out_index);

/* What a segment holds in another ecosystem's layout (a GGUF
 * block-quantized tensor, or the foreign .vmpk segment it was converted
 * into): the segment itself is ui8 bytes. A separate call rather than new
 * fields of vmpack_segment_info_t, which callers allocate: that struct's
 * size stays what existing programs were compiled with. */
typedef struct vmpack_foreign_info {
  /* "ggml.Q4_0", "ggml.Q4_K", ... ("ggml." and ggml's type name, as
   * docs/interop.md lists them), or "" when the segment is not foreign (all
   * other fields are then 0 / NULL). */
  const char *type;
  uint32_t type_id;     /* the ggml_type number                  */
  size_t rank;          /* the tensor's logical shape, outermost */
  const int64_t *shape; /* first (GGUF stores the reverse)       */
} vmpack_foreign_info_t;

VMPACK_API vmpack_status_t
vmpack_segment_foreign_info(const vmpack_module_t *module, size_t index,
                            vmpack_foreign_info_t *out_info);

/* A quantized segment (a GGUF block-quantized tensor, or the foreign .vmpk
 * segment it was converted into) as a quantized weight: its scheme and the
 * logical shape of the values it stands for. Like vmpack_foreign_info_t, a
 * separate call so that vmpack_segment_info_t keeps its size. Pointers
 * stay valid while the module is open. */
typedef struct vmpack_quant_info {
  /* "ggml.Q4_K", ... (as vmpack_foreign_info_t's type), or "" when the
   * segment is not quantized (every other field is then 0 / NULL / ""). */
  const char *scheme;
  uint32_t ggml_type;     /* the ggml_type number                      */
  uint32_t block_size;    /* elements per block (32, 256, ...)         */
  uint32_t block_bytes;   /* bytes per block                           */
  size_t rank;            /* the logical shape, outermost first        */
  const int64_t *shape;   /*                                           */
  uint64_t element_count; /* product of the shape                      */
  uint64_t block_count;   /* element_count / block_size                */
  int has_fast_kernel;    /* 1: a vector kernel (else the reference    */
                          /* decoder, at scalar speed)                 */
} vmpack_quant_info_t;

VMPACK_API vmpack_status_t vmpack_segment_quant_info(
    const vmpack_module_t *module, size_t index, vmpack_quant_info_t *out_info);

/* The float types vmpack_segment_dequantize writes: little-endian IEEE
 * binary32, binary16 and bfloat16. */
typedef enum vmpack_float_type {
  VMPACK_FLOAT_F32 = 0,
  VMPACK_FLOAT_F16 = 1,
  VMPACK_FLOAT_BF16 = 2
} vmpack_float_type_t;

/* Dequantizes elements [first, first + count) of a quantized segment (in
 * row-major order of its logical shape) into `dst` (`dst_size` bytes, at
 * least count * 4 for f32, count * 2 for f16 and bf16): each value is
 * computed in float32 exactly as ggml's reference dequantize_row_* computes
 * it (the same bits, NaNs included), then, for f16 and bf16, rounded to the
 * nearest, ties to even (a NaN stays a NaN; docs/quant.md). The range may
 * start and end inside blocks. Uses up to `threads` threads (0: one per
 * hardware thread; small ranges use one). VMPACK_ERROR_UNSUPPORTED for a
 * segment that is not quantized (use vmpack_segment_unpack);
 * VMPACK_ERROR_OUT_OF_RANGE, VMPACK_ERROR_BUFFER_TOO_SMALL and
 * VMPACK_ERROR_INVALID_ARGUMENT as vmpack_segment_unpack. */
VMPACK_API vmpack_status_t vmpack_segment_dequantize(
    const vmpack_module_t *module, size_t index, uint64_t first, uint64_t count,
    vmpack_float_type_t type, void *dst, size_t dst_size, unsigned threads);

/* One metadata key/value pair. Pointers stay valid while the module is
 * open; strings are NUL-terminated and may hold NUL bytes (lengths given).
 * Listed in file order:
 *  - .vmpk: the module's string metadata (format version 2, docs/format.md
 *    section 4.4), value_type "string";
 *  - safetensors: "__metadata__" (in file order), value_type "string",
 *    without the "vmpack.type.NAME" records already applied to tensors;
 *  - GGUF: every key/value pair (likewise without vmpack.type.*). Values as
 *    text in vmpack's one form for GGUF values (docs/interop.md, "GGUF
 *    values in string metadata"): strings as they are; any other value as
 *    JSON: integers in decimal; floats as the shortest decimal that reads
 *    back to the same bits ("0.5", "1e+04", "0.0"), NaN and infinities as a
 *    JSON string of their bits ("\"0x7ff8000000000000\""); bool
 *    "true"/"false"; arrays as flat JSON arrays of those or of JSON strings
 *    (no spaces; bytes that are not UTF-8 read as U+FFFD). value_type is
 *    "uint8", "int8", "uint16", "int16",
 *    "uint32", "int32", "uint64", "int64", "float32", "float64", "bool",
 *    "string", or "array<T>" with T one of those;
 *  - a sharded set: the files' metadata without the set's keys
 *    (vmpack.shard.*, split.*), each key once, in file order;
 *  - .irpa: none. */
typedef struct vmpack_metadata_entry {
  const char *key;
  size_t key_length;
  const char *value;
  size_t value_length;
  const char *value_type;
} vmpack_metadata_entry_t;

VMPACK_API size_t vmpack_module_metadata_count(const vmpack_module_t *module);

VMPACK_API vmpack_status_t
vmpack_module_metadata_entry(const vmpack_module_t *module, size_t index,
                             vmpack_metadata_entry_t *out_entry);

/* Finds a metadata entry by its exact key; VMPACK_ERROR_NOT_FOUND if
 * absent. */
VMPACK_API vmpack_status_t
vmpack_module_find_metadata(const vmpack_module_t *module, const char *key,
                            size_t key_length, size_t *out_index);

/* Unpacks elements [first, first + count) of a segment into `dst`
 * (`dst_size` bytes): integers widen sign-aware (iN, siN, index sign-extend;
 * uiN zero-extends) to int8/16/32 when W fits; float kinds of at most 32
 * bits decode to float32. A complex element produces two values (real,
 * imaginary). Needs dst_size >= count * values per element * dtype size.
 * Untyped segments (.irpa) give VMPACK_ERROR_UNSUPPORTED: use their bytes
 * (`data`) or pattern directly. */
VMPACK_API vmpack_status_t vmpack_segment_unpack(const vmpack_module_t *module,
                                                 size_t index, uint64_t first,
                                                 uint64_t count,
                                                 vmpack_dtype_t dtype,
                                                 void *dst, size_t dst_size);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* VMPACK_VMPACK_H */
