# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Hugging Face llama-family folders converted by vmpack-convert run in
llama.cpp itself.

Each test writes a tiny random checkpoint (config.json, safetensors written
here, a byte-level BPE tokenizer.json trained here), converts the folder
with `vmpack-convert MODEL_DIR -o model.gguf`, loads the file with
llama.cpp's libllama (npm @node-llama-cpp/linux-x64, installed by
scripts/install-npm-deps.sh) through ctypes, decodes a prompt of token ids
and compares every position's logits with a numpy forward pass of the
checkpoint with Hugging Face's semantics (rotate-half rope, grouped-query
attention, RMSNorm, SwiGLU, tied embeddings). llama.cpp's tokenizer,
loaded from the converted vocabulary, must give the ids that BPE over
tokenizer.json gives. Bad folders must be refused with a message naming
what is wrong, and nothing written."""

import ctypes
import json
import os
import pathlib
import subprocess

import numpy as np
import pytest
import re

from conftest import BUILD_DIR, SOURCE_DIR

# --- the checkpoint ---------------------------------------------------------

SAFETENSORS_DTYPE = {np.float32: "F32", np.float16: "F16", "bf16": "BF16"}


def to_bf16_bits(a):
    """float32 array -> bf16 bit patterns (uint16), rounding to nearest even."""
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    rounded = bits + 0x7FFF + ((bits >> 16) & 1)
    return (rounded >> 16).astype(np.uint16)


def from_bf16_bits(b):
    return (b.astype(np.uint32) << 16).view(np.float32)


def write_safetensors(path, tensors, dtype):
    """Writes `tensors` (name -> float32 array) as `dtype` ("F32", "F16",
    "BF16"); returns the arrays as stored, widened back to float64."""
    header, blobs, stored, offset = {}, [], {}, 0
    for name, a in tensors.items():
        if dtype == "F32":
            raw, back = a.astype(np.float32), a.astype(np.float32)
        elif dtype == "F16":
            raw = a.astype(np.float16)
            back = raw.astype(np.float32)
        else:
            raw = to_bf16_bits(a)
            back = from_bf16_bits(raw)
        data = raw.tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
        stored[name] = back.astype(np.float64)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for b in blobs:
            f.write(b)
    return stored


def random_weights(rng, c):
    """HF tensors of a llama/mistral/qwen2 checkpoint for config `c`."""
    h, ff, v = c["hidden_size"], c["intermediate_size"], c["vocab_size"]
    hd = c.get("head_dim", h // c["num_attention_heads"])
    q, kv = c["num_attention_heads"] * hd, c["num_key_value_heads"] * hd

    def mat(rows, cols):
        return rng.standard_normal((rows, cols)) / np.sqrt(cols)

    w = {"model.embed_tokens.weight": rng.standard_normal((v, h)),
         "model.norm.weight": 1 + 0.1 * rng.standard_normal(h)}
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."
        w[p + "input_layernorm.weight"] = 1 + 0.1 * rng.standard_normal(h)
        w[p + "post_attention_layernorm.weight"] = \
            1 + 0.1 * rng.standard_normal(h)
        w[p + "self_attn.q_proj.weight"] = mat(q, h)
        w[p + "self_attn.k_proj.weight"] = mat(kv, h)
        w[p + "self_attn.v_proj.weight"] = mat(kv, h)
        w[p + "self_attn.o_proj.weight"] = mat(h, q)
        if c["architectures"][0] == "Qwen2ForCausalLM":
            for n, rows in (("q", q), ("k", kv), ("v", kv)):
                w[p + f"self_attn.{n}_proj.bias"] = \
                    0.5 * rng.standard_normal(rows)
        w[p + "mlp.gate_proj.weight"] = mat(ff, h)
        w[p + "mlp.up_proj.weight"] = mat(ff, h)
        w[p + "mlp.down_proj.weight"] = mat(h, ff)
        w[p + "self_attn.rotary_emb.inv_freq"] = \
            1.0 / c.get("rope_theta", 1e4) ** (np.arange(0, hd, 2) / hd)
    if not c.get("tie_word_embeddings", False):
        w["lm_head.weight"] = mat(v, h)
    return w


# --- the reference forward pass (Hugging Face semantics) --------------------

def rms_norm(x, w, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * w


def rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def llama3_inv_freq(inv_freq, r):
    """transformers' _compute_llama3_parameters (modeling_rope_utils.py):
    low frequencies divided by `factor`, high ones kept, a smooth blend
    between."""
    old, low, high = (r["original_max_position_embeddings"],
                      r["low_freq_factor"], r["high_freq_factor"])
    wavelen = 2 * np.pi / inv_freq
    scaled = np.where(wavelen > old / low, inv_freq / r["factor"], inv_freq)
    smooth = (old / wavelen - low) / (high - low)
    blended = (1 - smooth) * scaled / r["factor"] + smooth * scaled
    medium = ~(wavelen < old / high) & ~(wavelen > old / low)
    return np.where(medium, blended, scaled)


def reference_logits(w, c, ids):
    """Logits of every position, float64, as transformers computes them."""
    h = c["hidden_size"]
    nh, nkv = c["num_attention_heads"], c["num_key_value_heads"]
    hd = c.get("head_dim", h // nh)
    eps, theta = c["rms_norm_eps"], c.get("rope_theta", 1e4)
    n = len(ids)
    x = w["model.embed_tokens.weight"][ids]
    inv_freq = 1.0 / theta ** (np.arange(0, hd, 2) / hd)
    scaling = c.get("rope_scaling") or {}
    if scaling.get("rope_type") == "llama3":
        inv_freq = llama3_inv_freq(inv_freq, scaling)
    angles = np.outer(np.arange(n), inv_freq)
    cos = np.cos(np.concatenate([angles, angles], axis=-1))
    sin = np.sin(np.concatenate([angles, angles], axis=-1))
    mask = np.triu(np.full((n, n), -np.inf), 1)
    for i in range(c["num_hidden_layers"]):
        p = f"model.layers.{i}."

        def lin(name, t, bias=True):
            y = t @ w[p + name + ".weight"].T
            b = w.get(p + name + ".bias")
            return y + b if b is not None and bias else y

        a = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = lin("self_attn.q_proj", a).reshape(n, nh, hd).transpose(1, 0, 2)
        k = lin("self_attn.k_proj", a).reshape(n, nkv, hd).transpose(1, 0, 2)
        v = lin("self_attn.v_proj", a).reshape(n, nkv, hd).transpose(1, 0, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        group = nh // nkv
        k, v = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)
        scores = q @ k.transpose(0, 2, 1) / np.sqrt(hd) + mask
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        o = (scores @ v).transpose(1, 0, 2).reshape(n, nh * hd)
        x = x + lin("self_attn.o_proj", o)
        m = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        g, u = lin("mlp.gate_proj", m), lin("mlp.up_proj", m)
        x = x + lin("mlp.down_proj", g / (1 + np.exp(-g)) * u)
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["lm_head.weight"] if "lm_head.weight" in w \
        else w["model.embed_tokens.weight"]
    return x @ head.T


# --- a byte-level BPE tokenizer ----------------------------------------------

GPT2_PATTERN = (r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+"
                r"|\s+(?!\S)|\s+")
# tokenizer.json's Split pattern of Qwen2 (docs/llama.md).
QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+"
                 r"|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

CORPUS = ("the quick brown fox jumps over the lazy dog. the cat sat on the "
          "mat, and the dog's hat was red. 1234 5678 hello world hello there "
          "over and over again; the end.\nnew lines and   spaces too ")


def byte_chars():
    """GPT-2's printable stand-in for each byte: printable Latin-1 bytes are
    themselves, the others take code points from 256 on, in byte order."""
    keep = set(range(0x21, 0x7F)) | set(range(0xA1, 0xAD)) | \
        set(range(0xAE, 0x100))
    out, extra = {}, 0
    for b in range(256):
        if b in keep:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return out


BYTE_CHARS = byte_chars()


def ascii_pattern(pattern):
    """`pattern` for Python's re, whose classes have no \\p{..}: letters and
    digits as ASCII ones (the test's texts are ASCII)."""
    out, inside, i = "", False, 0
    while i < len(pattern):
        for prop, chars in ((r"\p{L}", "A-Za-z"), (r"\p{N}", "0-9")):
            if pattern.startswith(prop, i):
                out += chars if inside else f"[{chars}]"
                i += len(prop)
                break
        else:
            ch = pattern[i]
            if ch == "\\":
                out += pattern[i:i + 2]
                i += 2
                continue
            inside = (inside or ch == "[") and ch != "]"
            out += ch
            i += 1
    return out


def pretokenize(text, pattern):
    return ["".join(BYTE_CHARS[b] for b in piece.encode())
            for piece in re.findall(ascii_pattern(pattern), text)]


def train_bpe(pattern, merges_wanted):
    words = {}
    for wd in pretokenize(CORPUS, pattern):
        words[tuple(wd)] = words.get(tuple(wd), 0) + 1
    merges = []
    for _ in range(merges_wanted):
        pairs = {}
        for wd, n in words.items():
            for a, b in zip(wd, wd[1:]):
                pairs[(a, b)] = pairs.get((a, b), 0) + n
        if not pairs:
            break
        best = min(pairs, key=lambda p: (-pairs[p], p))
        merges.append(best)
        merged = {}
        for wd, n in words.items():
            out, i = [], 0
            while i < len(wd):
                if i + 1 < len(wd) and (wd[i], wd[i + 1]) == best:
                    out.append(wd[i] + wd[i + 1])
                    i += 2
                else:
                    out.append(wd[i])
                    i += 1
            merged[tuple(out)] = merged.get(tuple(out), 0) + n
        words = merged
    return merges


def bpe_encode(text, vocab, merges, pattern):
    """Token ids as BPE over tokenizer.json computes them."""
    rank = {m: i for i, m in enumerate(merges)}
    ids = []
    for wd in pretokenize(text, pattern):
        sym = list(wd)
        while len(sym) > 1:
            pairs = [(rank.get((a, b), len(rank)), i)
                     for i, (a, b) in enumerate(zip(sym, sym[1:]))]
            best, i = min(pairs)
            if best == len(rank):
                break
            sym[i:i + 2] = [sym[i] + sym[i + 1]]
        ids += [vocab[s] for s in sym]
    return ids


def make_tokenizer(folder, pattern, merges_as_pairs, config):
    """tokenizer.json and tokenizer_config.json; returns (vocab, merges)."""
    merges = train_bpe(pattern, 40)
    vocab = {BYTE_CHARS[b]: b for b in range(256)}
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab))
    bos, eos = len(vocab), len(vocab) + 1
    assert eos < config["vocab_size"]
    if pattern == GPT2_PATTERN:
        pre = {"type": "ByteLevel", "add_prefix_space": False,
               "trim_offsets": True, "use_regex": True}
    else:
        pre = {"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": pattern},
             "behavior": "Isolated", "invert": False},
            {"type": "ByteLevel", "add_prefix_space": False,
             "trim_offsets": False, "use_regex": False}]}
    tok = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [
            {"id": bos, "content": "<s>", "single_word": False,
             "lstrip": False, "rstrip": False, "normalized": False,
             "special": True},
            {"id": eos, "content": "</s>", "single_word": False,
             "lstrip": False, "rstrip": False, "normalized": False,
             "special": True}],
        "normalizer": None, "pre_tokenizer": pre,
        "post_processor": {"type": "ByteLevel", "add_prefix_space": False,
                           "trim_offsets": False, "use_regex": False},
        "decoder": {"type": "ByteLevel"},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False,
                  "byte_fallback": False, "ignore_merges": False,
                  "vocab": vocab,
                  "merges": [list(m) if merges_as_pairs else " ".join(m)
                             for m in merges]}}
    (folder / "tokenizer.json").write_text(json.dumps(tok))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "add_bos_token": True, "add_eos_token": False,
        "bos_token": "<s>", "eos_token": "</s>",
        "chat_template": "{% for m in messages %}{{ m.content }}{% endfor %}"}))
    return vocab, merges, bos, eos


BASE = {"vocab_size": 320, "hidden_size": 64, "intermediate_size": 96,
        "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "max_position_embeddings": 128,
        "rms_norm_eps": 1e-5, "hidden_act": "silu"}
ARCHS = {
    "llama": dict(BASE, architectures=["LlamaForCausalLM"],
                  model_type="llama", rope_theta=10000.0,
                  tie_word_embeddings=False),
    # head_dim apart from hidden_size / heads, and 4 query heads per kv head.
    "mistral": dict(BASE, architectures=["MistralForCausalLM"],
                    model_type="mistral", rope_theta=1e6, head_dim=32,
                    num_key_value_heads=1, tie_word_embeddings=False,
                    sliding_window=None),
    "qwen2": dict(BASE, architectures=["Qwen2ForCausalLM"],
                  model_type="qwen2", rope_theta=1e6,
                  tie_word_embeddings=True, use_sliding_window=False),
}


def make_checkpoint(folder, arch, dtype="F32", shards=1, seed=0):
    """Writes a model folder; returns (config, stored weights, tokenizer)."""
    folder.mkdir(parents=True, exist_ok=True)
    c = dict(ARCHS[arch])
    rng = np.random.default_rng(seed)
    weights = random_weights(rng, c)
    pattern = QWEN2_PATTERN if arch == "qwen2" else GPT2_PATTERN
    vocab, merges, bos, eos = make_tokenizer(folder, pattern,
                                             arch == "qwen2", c)
    c["bos_token_id"], c["eos_token_id"] = bos, eos
    c["torch_dtype"] = {"F32": "float32", "F16": "float16",
                        "BF16": "bfloat16"}[dtype]
    (folder / "config.json").write_text(json.dumps(c))
    if shards == 1:
        stored = write_safetensors(folder / "model.safetensors", weights,
                                   dtype)
    else:
        names = list(weights)
        stored, weight_map = {}, {}
        for k in range(shards):
            part = names[k::shards]
            fname = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
            stored.update(write_safetensors(
                folder / fname, {n: weights[n] for n in part}, dtype))
            weight_map.update({n: fname for n in part})
        (folder / "model.safetensors.index.json").write_text(json.dumps(
            {"metadata": {}, "weight_map": weight_map}))
    return c, stored, (vocab, merges, pattern, bos, eos)


# --- the tools ---------------------------------------------------------------

def vmpack_convert():
    path = BUILD_DIR / "bin" / "vmpack-convert" if BUILD_DIR else None
    if path is None or not path.exists():
        pytest.skip(f"vmpack-convert is not built (VMPACK_BUILD_DIR="
                    f"{BUILD_DIR})")
    return path


def convert(folder, out, *extra):
    return subprocess.run([str(vmpack_convert()), str(folder), "-o",
                           str(out), *extra], capture_output=True, text=True)


LLAMA_DIR = pathlib.Path(os.environ.get(
    "VMPACK_NPM_DIR", SOURCE_DIR / "third_party" / "npm")) / "node_modules" / \
    "@node-llama-cpp" / "linux-x64" / "bins" / "linux-x64"


class Batch(ctypes.Structure):
    """include/llama.h, struct llama_batch."""
    _fields_ = [("n_tokens", ctypes.c_int32),
                ("token", ctypes.POINTER(ctypes.c_int32)),
                ("embd", ctypes.POINTER(ctypes.c_float)),
                ("pos", ctypes.POINTER(ctypes.c_int32)),
                ("n_seq_id", ctypes.POINTER(ctypes.c_int32)),
                ("seq_id", ctypes.POINTER(ctypes.POINTER(ctypes.c_int32))),
                ("logits", ctypes.POINTER(ctypes.c_int8))]


class Params(ctypes.Structure):
    """llama_model_params / llama_context_params as bytes. Both are larger
    than 16 bytes, so x86-64 passes them in memory and returns them through
    a hidden pointer: a buffer larger than the struct is read and written
    only where the struct lies."""
    _fields_ = [("raw", ctypes.c_uint8 * 512)]


def context_params_layout(raw):
    """Offsets of flash_attn_type, type_k and type_v in the default
    llama_context_params bytes. The struct has grown between releases, so
    the fields are found by the defaults include/llama.h gives them: four
    enums at -1 (rope_scaling_type, pooling_type, attention_type,
    flash_attn_type: unspecified/auto), then rope_freq_base and
    rope_freq_scale at 0.0f and yarn_ext_factor at -1.0f; after the yarn
    fields, yarn_orig_ctx and defrag_thold come the two cb_eval pointers
    (8-aligned), then type_k and type_v (GGML_TYPE_F16 = 1)."""
    b = bytes(raw)
    f32 = np.frombuffer(b, dtype=np.float32)
    i32 = np.frombuffer(b, dtype=np.int32)
    for i in range(len(i32) - 32):
        if (i32[i:i + 4] == -1).all() and f32[i + 4] == 0.0 and \
                f32[i + 5] == 0.0 and f32[i + 6] == -1.0:
            fa = i + 3
            type_k = (4 * (i + 12) + 7) // 8 * 8 + 16
            assert i32[type_k // 4] == 1 and i32[type_k // 4 + 1] == 1, \
                "type_k/type_v are not F16 by default"
            return 4 * fa, type_k, type_k + 4
    raise AssertionError("llama_context_params: the rope fields are not "
                         "where include/llama.h puts them")


class Llama:
    """llama.cpp's libllama through ctypes."""

    def __init__(self):
        libs = sorted(p for p in LLAMA_DIR.glob("libllama*.so")
                      if "common" not in p.name)
        ggml = sorted(LLAMA_DIR.glob("libggml.*so"))
        if not libs or not ggml:
            pytest.skip(f"llama.cpp's libllama is not in {LLAMA_DIR}: run "
                        "scripts/install-npm-deps.sh (npm "
                        "@node-llama-cpp/linux-x64)")
        self.lib = lib = ctypes.CDLL(str(libs[0]))
        self.ggml = ctypes.CDLL(str(ggml[0]))
        p, i32 = ctypes.c_void_p, ctypes.c_int32
        self.ggml.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
        self._log = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p,
                                     p)(self._on_log)
        self.log = []
        lib.llama_log_set.argtypes = [ctypes.c_void_p, p]
        lib.llama_log_set(ctypes.cast(self._log, p), None)
        self.ggml.ggml_backend_load_all_from_path(str(LLAMA_DIR).encode())
        lib.llama_backend_init()
        lib.llama_model_default_params.restype = Params
        lib.llama_context_default_params.restype = Params
        lib.llama_model_load_from_file.argtypes = [ctypes.c_char_p, Params]
        lib.llama_model_load_from_file.restype = p
        lib.llama_init_from_model.argtypes = [p, Params]
        lib.llama_init_from_model.restype = p
        lib.llama_model_get_vocab.argtypes = [p]
        lib.llama_model_get_vocab.restype = p
        lib.llama_vocab_n_tokens.argtypes = [p]
        lib.llama_vocab_n_tokens.restype = i32
        lib.llama_vocab_bos.argtypes = [p]
        lib.llama_vocab_bos.restype = i32
        lib.llama_vocab_eos.argtypes = [p]
        lib.llama_vocab_eos.restype = i32
        lib.llama_batch_init.argtypes = [i32, i32, i32]
        lib.llama_batch_init.restype = Batch
        lib.llama_batch_free.argtypes = [Batch]
        lib.llama_decode.argtypes = [p, Batch]
        lib.llama_decode.restype = i32
        lib.llama_get_logits_ith.argtypes = [p, i32]
        lib.llama_get_logits_ith.restype = ctypes.POINTER(ctypes.c_float)
        lib.llama_tokenize.argtypes = [p, ctypes.c_char_p, i32,
                                       ctypes.POINTER(i32), i32,
                                       ctypes.c_bool, ctypes.c_bool]
        lib.llama_tokenize.restype = i32
        lib.llama_free.argtypes = [p]
        lib.llama_model_free.argtypes = [p]

    def _on_log(self, level, text, _):
        self.log.append(text.decode(errors="replace"))

    def load(self, path):
        model = self.lib.llama_model_load_from_file(
            str(path).encode(), self.lib.llama_model_default_params())
        assert model, "llama.cpp did not load the model:\n" + \
            "".join(self.log[-30:])
        return model

    def run(self, path, ids):
        """Logits of every position of `ids`, float32 as llama.cpp gives
        them, with an f32 KV cache and without flash attention."""
        model = self.load(path)
        cparams = self.lib.llama_context_default_params()
        fa, type_k, type_v = context_params_layout(cparams.raw)
        raw = cparams.raw
        ctypes.c_int32.from_buffer(raw, 0).value = 64  # n_ctx
        ctypes.c_int32.from_buffer(raw, fa).value = 0  # disabled
        ctypes.c_int32.from_buffer(raw, type_k).value = 0  # GGML_TYPE_F32
        ctypes.c_int32.from_buffer(raw, type_v).value = 0
        ctx = self.lib.llama_init_from_model(model, cparams)
        assert ctx, "llama.cpp did not make a context:\n" + \
            "".join(self.log[-30:])
        vocab = self.lib.llama_model_get_vocab(model)
        n_vocab = self.lib.llama_vocab_n_tokens(vocab)
        batch = self.lib.llama_batch_init(len(ids), 0, 1)
        try:
            batch.n_tokens = len(ids)
            for i, t in enumerate(ids):
                batch.token[i] = t
                batch.pos[i] = i
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = 0
                batch.logits[i] = 1
            rc = self.lib.llama_decode(ctx, batch)
            assert rc == 0, f"llama_decode returned {rc}"
            out = np.array([np.ctypeslib.as_array(
                self.lib.llama_get_logits_ith(ctx, i), (n_vocab,))
                for i in range(len(ids))])
        finally:
            self.lib.llama_batch_free(batch)
            self.lib.llama_free(ctx)
            self.lib.llama_model_free(model)
        return out

    def tokenize(self, path, texts, add_special=False):
        model = self.load(path)
        vocab = self.lib.llama_model_get_vocab(model)
        out = []
        try:
            for t in texts:
                b = t.encode()
                buf = (ctypes.c_int32 * (len(b) + 8))()
                n = self.lib.llama_tokenize(vocab, b, len(b), buf, len(buf),
                                            add_special, False)
                assert n >= 0, f"llama_tokenize returned {n} for {t!r}"
                out.append(list(buf[:n]))
            specials = (self.lib.llama_vocab_bos(vocab),
                        self.lib.llama_vocab_eos(vocab))
        finally:
            self.lib.llama_model_free(model)
        return out, specials


@pytest.fixture(scope="module")
def llama():
    return Llama()


# --- llama.cpp runs the converted models --------------------------------------

PROMPT = [3, 290, 17, 256, 101, 5, 300, 42, 260, 99, 7, 281]
# Tolerances on max |llama.cpp - reference| / max |reference logit|.
# f32 weights: llama.cpp computes in f32 (f32 dot products, f32 KV cache,
# no flash attention), the reference in float64; measured 1.7e-7 (llama,
# mistral) and 2.1e-7 (qwen2).
F32_TOLERANCE = 2e-6
# f16 and bf16 weights: the same rounded weights in both, but ggml rounds
# the activations to the weight type before each dot product (its
# vec_dot_type), a relative error of up to 2^-11 (f16) or 2^-8 (bf16) per
# operand; measured 5.0e-4 (llama f16) and 2.4e-3 (qwen2 bf16).
ROUNDED_TOLERANCE = {"F16": 5e-3, "BF16": 1e-2}


def relative_difference(got, want):
    return np.abs(got - want).max() / np.abs(want).max()


@pytest.mark.parametrize("arch,dtype,shards", [
    ("llama", "F32", 1), ("mistral", "F32", 2), ("qwen2", "F32", 1),
    ("llama", "F16", 1), ("qwen2", "BF16", 1)])
def test_llama_cpp_logits_match_reference(tmp_path, llama, arch, dtype,
                                          shards):
    folder = tmp_path / f"tiny-{arch}"
    c, stored, _ = make_checkpoint(folder, arch, dtype, shards)
    out = tmp_path / "model.gguf"
    r = convert(folder, out)
    assert r.returncode == 0, r.stderr
    got = llama.run(out, PROMPT)
    want = reference_logits(stored, c, PROMPT)
    assert got.shape == want.shape
    diff = relative_difference(got, want)
    tol = F32_TOLERANCE if dtype == "F32" else ROUNDED_TOLERANCE[dtype]
    print(f"{arch} {dtype}: max |llama.cpp - reference| = "
          f"{np.abs(got - want).max():.3g}, {diff:.3g} of the largest "
          f"logit ({np.abs(want).max():.3g})")
    assert diff < tol, f"{arch} {dtype}: logits differ by {diff}"
    # Greedy next tokens agree at every position.
    assert (got.argmax(axis=1) == want.argmax(axis=1)).all()


def test_llama_cpp_without_permutation_differs(tmp_path, llama):
    """The Q/K row permutation is what makes llama weights right: the same
    checkpoint declared as Qwen2-style rope would not match (a check that
    the comparison can fail)."""
    folder = tmp_path / "tiny-llama"
    c, stored, _ = make_checkpoint(folder, "llama")
    out = tmp_path / "model.gguf"
    assert convert(folder, out).returncode == 0
    got = llama.run(out, PROMPT)
    # Reference with the rows of q_proj and k_proj permuted the other way
    # round: llama.cpp's result must not match it.
    wrong = dict(stored)
    for i in range(c["num_hidden_layers"]):
        for n, heads in (("q", c["num_attention_heads"]),
                         ("k", c["num_key_value_heads"])):
            key = f"model.layers.{i}.self_attn.{n}_proj.weight"
            hd = c["hidden_size"] // c["num_attention_heads"]
            a = wrong[key].reshape(heads, hd // 2, 2, -1)
            wrong[key] = a.transpose(0, 2, 1, 3).reshape(wrong[key].shape)
    assert relative_difference(got, reference_logits(wrong, c, PROMPT)) > \
        1e-2
    assert relative_difference(got, reference_logits(stored, c, PROMPT)) < \
        F32_TOLERANCE


def test_llama_cpp_runs_llama3_rope_scaling(tmp_path, llama):
    """rope_scaling of type llama3 (Llama 3.1) becomes the rope_freqs
    tensor, with which llama.cpp's logits match transformers' scaled
    rope; the unscaled rope does not match them."""
    folder = tmp_path / "tiny-llama3"
    c, stored, _ = make_checkpoint(folder, "llama")
    # head_dim 16, theta 1e4: wavelengths 6.3, 19.9, 62.8, 199, ... so with
    # an original context of 64 one pair is kept, two are blended and five
    # are divided by the factor.
    c["rope_scaling"] = {"rope_type": "llama3", "factor": 8.0,
                         "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                         "original_max_position_embeddings": 64}
    (folder / "config.json").write_text(json.dumps(c))
    out = tmp_path / "model.gguf"
    r = convert(folder, out)
    assert r.returncode == 0, r.stderr
    got = llama.run(out, PROMPT)
    diff = relative_difference(got, reference_logits(stored, c, PROMPT))
    print(f"llama3 rope: {diff:.3g} of the largest logit")
    assert diff < F32_TOLERANCE
    plain = dict(c, rope_scaling=None)
    assert relative_difference(got, reference_logits(stored, plain,
                                                     PROMPT)) > 1e-4


TEXTS = ["the quick brown fox", "hello world, hello there!",
         "the dog's hat was red 12345", "  spaced   out\nnew lines",
         "over and over; x+y=z"]


@pytest.mark.parametrize("arch", ["llama", "qwen2"])
def test_llama_cpp_tokenizer_matches_tokenizer_json(tmp_path, llama, arch):
    folder = tmp_path / f"tiny-{arch}"
    _, _, (vocab, merges, pattern, bos, eos) = make_checkpoint(folder, arch)
    out = tmp_path / "model.gguf"
    assert convert(folder, out).returncode == 0
    got, (gguf_bos, gguf_eos) = llama.tokenize(out, TEXTS)
    want = [bpe_encode(t, vocab, merges, pattern) for t in TEXTS]
    assert got == want
    assert any(i >= 256 for ids in want for i in ids), "no merge was used"
    assert (gguf_bos, gguf_eos) == (bos, eos)
    # add_bos_token from tokenizer_config.json.
    with_bos, _ = llama.tokenize(out, TEXTS[:1], add_special=True)
    assert with_bos[0] == [bos] + want[0]


def test_llama_cpp_loads_no_vocab(tmp_path, llama):
    folder = tmp_path / "tiny-llama"
    c, stored, _ = make_checkpoint(folder, "llama")
    (folder / "tokenizer.json").unlink()
    out = tmp_path / "model.gguf"
    r = convert(folder, out)
    assert r.returncode == 1 and "tokenizer.json" in r.stderr and \
        "--no-vocab" in r.stderr, r.stderr
    assert not out.exists()
    r = convert(folder, out, "--no-vocab")
    assert r.returncode == 0, r.stderr
    got = llama.run(out, PROMPT)
    assert relative_difference(got, reference_logits(stored, c, PROMPT)) < \
        F32_TOLERANCE


# --- quantized checkpoints --------------------------------------------------

LINEARS = ("self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
           "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj",
           "mlp.down_proj")
AWQ_ORDER = [0, 2, 4, 6, 1, 3, 5, 7]


def quantize_rows(w, group, rng):
    """Symmetric 4-bit codes of `w` [out, in] in groups along `in`: codes
    (0..15, zero point 8), f16 scales [out, groups], and the values
    (q - 8) * s they stand for, as float64."""
    out_f, in_f = w.shape
    g = w.reshape(out_f, in_f // group, group)
    scales = (np.abs(g).max(axis=2) / 7 *
              (1 + 0.1 * rng.random(g.shape[:2]))).astype(np.float16)
    s = scales.astype(np.float64)[:, :, None]
    codes = np.clip(np.round(g / s) + 8, 0, 15).astype(np.uint32)
    values = ((codes.astype(np.float64) - 8) * s).reshape(out_f, in_f)
    return codes.reshape(out_f, in_f), scales, values


def pack_nibbles(a, axis, order=range(8)):
    """Eight 4-bit values along `axis` in one uint32, value order[k] of each
    run of eight in nibble k."""
    a = np.moveaxis(a.astype(np.uint32), axis, -1)
    a = a.reshape(*a.shape[:-1], -1, 8)
    out = np.zeros(a.shape[:-1], dtype=np.uint32)
    for k, src in enumerate(order):
        out |= a[..., src] << np.uint32(4 * k)
    return np.moveaxis(out, -1, axis).view(np.int32)


def write_raw_safetensors(path, tensors):
    """tensors: name -> (dtype, numpy array of that dtype's bytes)."""
    header, blobs, offset = {}, [], 0
    for name, (dtype, a) in tensors.items():
        data = np.ascontiguousarray(a).tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for b in blobs:
            f.write(b)


def make_quantized_checkpoint(folder, arch, method, group=32, seed=0):
    """A GPTQ (v1 zero points, symmetric), AWQ (GEMM, every zero point 8),
    compressed-tensors pack-quantized (symmetric, q + 8 along `in`, as
    compressed-tensors' pack_to_int32 packs it) or MLX affine (q * s + b
    with b = -8 * s, exact in f16; mlx/ops.cpp's packing) checkpoint whose
    linears are 4-bit codes with f16 scales; the other tensors f16.
    Returns (config, the values it stands for)."""
    folder.mkdir(parents=True, exist_ok=True)
    c = dict(ARCHS[arch])
    rng = np.random.default_rng(seed)
    weights = random_weights(rng, c)
    _, _, bos, eos = make_tokenizer(
        folder, QWEN2_PATTERN if arch == "qwen2" else GPT2_PATTERN,
        arch == "qwen2", c)
    c["bos_token_id"], c["eos_token_id"] = bos, eos
    raw, values = {}, {}
    for name, w in weights.items():
        module = name.rsplit(".", 1)[0]
        if name.endswith(".weight") and module.split(".", 3)[-1] in LINEARS:
            codes, scales, v = quantize_rows(w, group, rng)
            values[name] = v
            zeros = np.full((w.shape[1] // group, w.shape[0]), 8, np.uint32)
            if method == "ct":
                raw[module + ".weight_packed"] = ("I32", pack_nibbles(codes, 1))
                raw[module + ".weight_scale"] = ("F16", scales)
                raw[module + ".weight_shape"] = (
                    "I64", np.array(w.shape, np.int64))
                continue
            if method == "mlx":
                raw[module + ".weight"] = (
                    "U32", pack_nibbles(codes, 1).view(np.uint32))
                raw[module + ".scales"] = ("F16", scales)
                raw[module + ".biases"] = ("F16", (scales * np.float16(-8)))
                continue
            if method == "gptq":
                raw[module + ".qweight"] = ("I32", pack_nibbles(codes.T, 0))
                raw[module + ".qzeros"] = ("I32", pack_nibbles(zeros - 1, 1))
                raw[module + ".g_idx"] = (
                    "I32", (np.arange(w.shape[1]) // group).astype(np.int32))
            else:
                raw[module + ".qweight"] = ("I32", pack_nibbles(
                    codes.T, 1, AWQ_ORDER))
                raw[module + ".qzeros"] = ("I32", pack_nibbles(
                    zeros, 1, AWQ_ORDER))
            raw[module + ".scales"] = ("F16", np.ascontiguousarray(scales.T))
        else:
            h = w.astype(np.float16)
            raw[name] = ("F16", h)
            values[name] = h.astype(np.float64)
    write_raw_safetensors(folder / "model.safetensors", raw)
    if method == "gptq":
        c["quantization_config"] = {
            "quant_method": "gptq", "bits": 4, "group_size": group,
            "desc_act": False, "sym": True, "checkpoint_format": "gptq"}
    elif method == "ct":
        c["quantization_config"] = {
            "quant_method": "compressed-tensors", "format": "pack-quantized",
            "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
                "num_bits": 4, "type": "int", "symmetric": True,
                "strategy": "group", "group_size": group}}}}
    elif method == "mlx":
        c["quantization"] = {"group_size": group, "bits": 4}
        c["quantization_config"] = dict(c["quantization"])
    else:
        c["quantization_config"] = {
            "quant_method": "awq", "bits": 4, "group_size": group,
            "zero_point": True, "version": "gemm"}
    (folder / "config.json").write_text(json.dumps(c))
    return c, values


def gguf_tensor_types(path):
    """name -> ggml type of a GGUF file's tensors (the header alone)."""
    data = path.read_bytes()
    pos = 8
    n_tensors, n_kv = np.frombuffer(data[pos:pos + 16], np.uint64)
    pos += 16
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8,
             12: 8}

    def string(p):
        n = int(np.frombuffer(data[p:p + 8], np.uint64)[0])
        return data[p + 8:p + 8 + n].decode(), p + 8 + n

    def value(t, p):
        if t == 8:
            return string(p)[1]
        if t == 9:
            et = int(np.frombuffer(data[p:p + 4], np.uint32)[0])
            n = int(np.frombuffer(data[p + 4:p + 12], np.uint64)[0])
            p += 12
            for _ in range(n):
                p = value(et, p)
            return p
        return p + sizes[t]

    for _ in range(int(n_kv)):
        _, pos = string(pos)
        t = int(np.frombuffer(data[pos:pos + 4], np.uint32)[0])
        pos = value(t, pos + 4)
    types = {}
    for _ in range(int(n_tensors)):
        name, pos = string(pos)
        dims = int(np.frombuffer(data[pos:pos + 4], np.uint32)[0])
        pos += 4 + 8 * dims
        types[name] = int(np.frombuffer(data[pos:pos + 4], np.uint32)[0])
        pos += 12
    return types


# Q4_0 weights: the blocks hold exactly the checkpoint's (q - z) * s, but
# llama.cpp's Q4_0 dot product rounds the activations to Q8_0 (8-bit codes
# with one f16 scale per 32 values, ggml's vec_dot_type for Q4_0): up to
# 1/254 of each block's largest value per activation, through every
# matrix product of two layers; f16 embeddings and output round them to
# f16. Measured 9.7e-3 (llama gptq, awq and compressed-tensors), 1.2e-2
# (mistral gptq), 7.2e-3 (qwen2 gptq), 1.0e-2 (qwen2 mlx, Q4_1: its
# activations are rounded to Q8_1 likewise) of the largest logit, greedy
# tokens equal at 12/12 positions.
Q4_0_TOLERANCE = 3e-2


@pytest.mark.parametrize("arch,method", [
    ("llama", "gptq"), ("llama", "awq"), ("mistral", "gptq"),
    ("qwen2", "gptq"), ("llama", "ct"), ("qwen2", "mlx")])
def test_llama_cpp_runs_quantized_checkpoint(tmp_path, llama, arch, method):
    folder = tmp_path / f"tiny-{arch}-{method}"
    c, values = make_quantized_checkpoint(folder, arch, method)
    out = tmp_path / "model.gguf"
    r = convert(folder, out)
    assert r.returncode == 0, r.stderr
    types = gguf_tensor_types(out)
    # Every quantized linear is Q4_0 (ggml type 2; MLX's q * s + b: Q4_1,
    # 3), the rest as stored (f16 = 1) or f32 (0, the norms and biases).
    qtype = 3 if method == "mlx" else 2
    assert types["blk.0.attn_q.weight"] == qtype
    assert sum(t == qtype for t in types.values()) == \
        7 * c["num_hidden_layers"]
    assert types["token_embd.weight"] == 1
    got = llama.run(out, PROMPT)
    want = reference_logits(values, c, PROMPT)
    diff = relative_difference(got, want)
    agree = int((got.argmax(axis=1) == want.argmax(axis=1)).sum())
    print(f"{arch} {method} -> Q4_{qtype - 2}: max |llama.cpp - reference| = "
          f"{np.abs(got - want).max():.3g}, {diff:.3g} of the largest logit; "
          f"greedy token equal at {agree}/{len(PROMPT)} positions")
    assert diff < Q4_0_TOLERANCE
    # The greedy next token after the prompt is the reference's.
    assert got[-1].argmax() == want[-1].argmax()


def test_quantized_checkpoint_dequantized(tmp_path, llama):
    """--dequantize=f32: the linears as f32 (the values (q - z) * s are
    exact in f32) and the f16 embeddings and output as stored: llama.cpp is
    then as close as with an f16 model (measured 1.9e-4), so the Q4_0
    difference above is the activations' rounding, not the weights'."""
    folder = tmp_path / "tiny-llama-gptq"
    c, values = make_quantized_checkpoint(folder, "llama", "gptq")
    out = tmp_path / "model.gguf"
    r = convert(folder, out, "--dequantize=f32")
    assert r.returncode == 0, r.stderr
    assert gguf_tensor_types(out)["blk.1.ffn_down.weight"] == 0
    got = llama.run(out, PROMPT)
    assert relative_difference(got, reference_logits(values, c, PROMPT)) < \
        ROUNDED_TOLERANCE["F16"]


# --- bad folders ---------------------------------------------------------------

def edit_config(folder, **changes):
    c = json.loads((folder / "config.json").read_text())
    for k, v in changes.items():
        if v is None:
            c.pop(k, None)
        else:
            c[k] = v
    (folder / "config.json").write_text(json.dumps(c))


def edit_tokenizer(folder, edit):
    t = json.loads((folder / "tokenizer.json").read_text())
    edit(t)
    (folder / "tokenizer.json").write_text(json.dumps(t))


@pytest.mark.parametrize("change,message", [
    (lambda f: edit_config(f, architectures=["GPT2LMHeadModel"]),
     "architecture 'GPT2LMHeadModel' is not one vmpack converts"),
    (lambda f: edit_config(f, rms_norm_eps=None),
     "has no 'rms_norm_eps' (llama.cpp's "
     "llama.attention.layer_norm_rms_epsilon)"),
    (lambda f: edit_config(f, num_hidden_layers=None),
     "has no 'num_hidden_layers'"),
    (lambda f: edit_config(f, hidden_size=48),
     "tensor 'model.embed_tokens.weight' has shape [320, 64] but "
     "config.json makes it [320, 48]"),
    (lambda f: edit_config(f, num_key_value_heads=4),
     "tensor 'model.layers.0.self_attn.k_proj.weight' has shape [32, 64] "
     "but config.json makes it [64, 64]"),
    (lambda f: edit_config(f, num_hidden_layers=3),
     "has no tensor 'model.layers.2.input_layernorm.weight'"),
    (lambda f: edit_config(f, num_hidden_layers=1),
     "tensor 'model.layers.1."),
    (lambda f: edit_config(f, vocab_size=300),
     "[320, 64] but config.json makes it [300, 64]"),
    (lambda f: edit_config(f, rope_scaling={"rope_type": "dynamic",
                                            "factor": 2.0}),
     "rope_scaling type 'dynamic' is not converted"),
    (lambda f: edit_config(f, rope_scaling={"rope_type": "llama3",
                                            "low_freq_factor": 1.0}),
     "has type 'llama3' and no positive factor"),
    (lambda f: edit_config(f, rope_scaling={
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 2.0,
        "high_freq_factor": 2.0}), "the two factors different"),
    (lambda f: edit_tokenizer(f, lambda t: t["model"].update(type="Unigram")),
     "the tokenizer model is 'Unigram', not BPE, which llama.cpp's BPE "
     "vocabulary (tokenizer.ggml.model gpt2) cannot represent"),
    (lambda f: edit_tokenizer(f, lambda t: t["model"].update(
        byte_fallback=True)), "byte_fallback"),
    (lambda f: edit_tokenizer(f, lambda t: t.update(pre_tokenizer={
        "type": "Whitespace"})), "pass --tokenizer-pre=NAME"),
    (lambda f: edit_tokenizer(f, lambda t: t["model"]["merges"].append(
        ["a b", "c"])), "has a token with a space"),
])
def test_bad_folder_is_refused(tmp_path, change, message):
    folder = tmp_path / "tiny-llama"
    make_checkpoint(folder, "llama")
    change(folder)
    out = tmp_path / "model.gguf"
    r = convert(folder, out)
    assert r.returncode == 1, r.stdout + r.stderr
    assert message in r.stderr, r.stderr
    assert not out.exists()
    assert not list(tmp_path.glob("model.gguf*"))


def test_folder_needs_gguf_output(tmp_path):
    folder = tmp_path / "tiny-llama"
    make_checkpoint(folder, "llama")
    r = convert(folder, tmp_path / "model.safetensors")
    assert r.returncode == 1 and "a llama.cpp GGUF model" in r.stderr, \
        r.stderr
    r = convert(tmp_path / "nothing.gguf", tmp_path / "x.safetensors",
                "--no-vocab")
    assert r.returncode == 2 and "--no-vocab" in r.stderr, r.stderr


# --- a SentencePiece vocabulary ---------------------------------------------
# Llama 2 and Mistral ship tokenizer.model, a SentencePiece BPE model. The
# tests train one with SentencePiece itself (Debian's python3-sentencepiece)
# with Llama's settings, and require llama.cpp's tokenizer, loaded from the
# converted vocabulary, to give the ids SentencePiece gives.

SPM_TEXTS = TEXTS + ["héllo wörld ✓ ünïcödé", " leading space",
                     "tabs\tand  double  spaces", "x"]
# Llama 2's tokenizer.model settings (its trainer_spec and normalizer_spec).
LLAMA_SPM = dict(model_type="bpe", vocab_size=300, byte_fallback=True,
                 character_coverage=1.0, normalization_rule_name="identity",
                 remove_extra_whitespaces=False, add_dummy_prefix=True,
                 split_digits=True, allow_whitespace_only_pieces=True,
                 unk_id=0, bos_id=1, eos_id=2, pad_id=-1)


def sentencepiece():
    try:
        import sentencepiece as spm
    except ImportError:
        pytest.skip("python3-sentencepiece is not installed "
                    "(scripts/install-deps.sh installs it): the "
                    "SentencePiece models are trained with it")
    return spm


def train_spm(folder, **changes):
    """Writes folder/tokenizer.model; returns its SentencePieceProcessor."""
    import io
    spm = sentencepiece()
    settings = dict(LLAMA_SPM, **changes)
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(CORPUS.split("\n") * 4), model_writer=model,
        minloglevel=2, **settings)
    (folder / "tokenizer.model").write_bytes(model.getvalue())
    return spm.SentencePieceProcessor(model_proto=model.getvalue())


def test_llama_cpp_tokenizer_matches_sentencepiece(tmp_path, llama):
    folder = tmp_path / "tiny-llama"
    c, stored, _ = make_checkpoint(folder, "llama")
    # tokenizer.model is read before tokenizer.json, as llama.cpp's own
    # converter does.
    sp = train_spm(folder)
    out = tmp_path / "model.gguf"
    r = convert(folder, out)
    assert r.returncode == 0, r.stderr
    got, (bos, eos) = llama.tokenize(out, SPM_TEXTS)
    want = [sp.encode(t) for t in SPM_TEXTS]
    assert got == want
    assert any(sp.id_to_piece(i).startswith("<0x") for ids in want
               for i in ids), "no byte fallback was used"
    assert any(len(sp.id_to_piece(i)) > 2 for ids in want for i in ids), \
        "no merge was used"
    assert (bos, eos) == (sp.bos_id(), sp.eos_id()) == (1, 2)
    with_bos, _ = llama.tokenize(out, SPM_TEXTS[:1], add_special=True)
    assert with_bos[0] == [1] + want[0]
    # The model runs, and the vocabulary padded to vocab_size (300 pieces,
    # 320 rows) changes nothing in the logits.
    got = llama.run(out, PROMPT)
    assert relative_difference(got, reference_logits(stored, c, PROMPT)) < \
        F32_TOLERANCE


def test_sentencepiece_added_tokens(tmp_path, llama):
    """added_tokens.json and tokenizer_config.json's added_tokens_decoder
    place tokens after the pieces, as llama.cpp's converter does: special
    ones as control tokens, the others as user-defined text."""
    folder = tmp_path / "tiny-llama"
    make_checkpoint(folder, "llama")
    (folder / "tokenizer.json").unlink()
    sp = train_spm(folder)
    (folder / "added_tokens.json").write_text(json.dumps({"<tool>": 300}))
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["added_tokens_decoder"] = {
        "301": {"content": "<|im_end|>", "special": False},
        "302": {"content": "fox\u2581jumps", "special": False}}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    out = tmp_path / "model.gguf"
    r = convert(folder, out)
    assert r.returncode == 0, r.stderr
    got, _ = llama.tokenize(out, ["the fox jumps", "a <tool> b"])
    # "fox jumps" (pre-normalized: U+2581 back to a space) is one
    # user-defined token; <tool> too.
    assert 302 in got[0], got
    assert 300 in got[1], got
    # <|im_end|> looks special: a control token, parsed only when asked.
    plain, _ = llama.tokenize(out, ["<|im_end|>"])
    assert 301 not in plain[0] and plain[0] == sp.encode("<|im_end|>")


@pytest.mark.parametrize("changes,message", [
    (dict(model_type="unigram"), "the model is UNIGRAM"),
    (dict(normalization_rule_name="nmt_nfkc"), "it normalizes text"),
    (dict(remove_extra_whitespaces=True), "it removes extra whitespace"),
])
def test_sentencepiece_llama_cpp_cannot_run_is_refused(tmp_path, changes,
                                                       message):
    folder = tmp_path / "tiny-llama"
    make_checkpoint(folder, "llama")
    train_spm(folder, **changes)
    out = tmp_path / "model.gguf"
    r = convert(folder, out)
    assert r.returncode == 1, r.stderr
    assert message in r.stderr and "tokenizer.model" in r.stderr and \
        "--no-vocab" in r.stderr, r.stderr
    assert not out.exists()


def test_damaged_sentencepiece_model_is_refused(tmp_path):
    folder = tmp_path / "tiny-llama"
    make_checkpoint(folder, "llama")
    train_spm(folder)
    model = (folder / "tokenizer.model").read_bytes()
    (folder / "tokenizer.model").write_bytes(model[:len(model) // 2])
    out = tmp_path / "model.gguf"
    r = convert(folder, out)
    assert r.returncode == 1 and "SentencePiece model" in r.stderr and \
        "tokenizer.model" in r.stderr, r.stderr
    assert not out.exists()
