# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""check_schema.py SCHEMA DOC.json...: fails unless every document is valid
against the JSON Schema (docs/vmpack-dump.schema.json) and what a schema
cannot say holds too: each tensor's "file" indexes "files", each file's
"tensors" counts the tensors that name it, each alias's "target" names a
tensor. Prints one line per document.

check_schema.py --reject SCHEMA DOC.json...: fails unless every document
is INVALID, printing the first reason for each: a validator that accepted
everything would fail here.

check_schema.py --damage SCHEMA DOC.json...: for each (valid) document,
makes wrong copies (a member missing, renamed, added or of the wrong type,
a format-specific value where the format has none) and fails unless the
schema rejects every one.
"""
import copy
import json
import sys

import jsonschema


def problems(validator, doc):
    """The first schema error, or the first broken cross-reference."""
    error = jsonschema.exceptions.best_match(validator.iter_errors(doc))
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        return "%s: %s" % (where, error.message)
    files = doc["files"]
    counts = [0] * len(files)
    for t in doc["tensors"]:
        if t["file"] >= len(files):
            return "tensor %r: file %d of %d" % (t["name"], t["file"],
                                                 len(files))
        counts[t["file"]] += 1
    for f, n in zip(files, counts):
        if f["tensors"] != n:
            return "file %r: says %d tensors, %d name it" % (f["path"],
                                                             f["tensors"], n)
    names = {t["name"] for t in doc["tensors"]}
    for a in doc["aliases"]:
        if a["target"] not in names:
            return "alias %r: no tensor %r" % (a["name"], a["target"])
    # A quantized weight's parts are tensors (or aliases) of the document.
    constants = names | {a["name"] for a in doc["aliases"]}
    for t in doc["tensors"]:
        for part, name in ((t["quant"] or {}).get("parts") or {}).items():
            if name not in constants:
                return "tensor %r: its part %s %r is not listed" % (
                    t["name"], part, name)
    if doc["format"] == "huggingface":
        # Each quantized weight's tensors are listed, naming it.
        for w in doc["extra"]["weights"]:
            for part, name in w["tensors"].items():
                t = [t for t in doc["tensors"] if t["name"] == name]
                if not t or t[0]["extra"] != {"weight": w["name"],
                                              "part": part}:
                    return "weight %r: its %s %r is not listed as its %s" % (
                        w["name"], part, name, part)
        weights = {w["name"]: w for w in doc["extra"]["weights"]}
        for t in doc["tensors"]:
            w, part = t["extra"]["weight"], t["extra"]["part"]
            if (w is None) != (part is None):
                return "tensor %r: a weight without a part" % t["name"]
            if w is not None and (
                    w not in weights or
                    weights[w]["tensors"].get(part) != t["name"]):
                return "tensor %r: weight %r has no %s %r" % (t["name"], w,
                                                             part, t["name"])
    return None


def damaged(doc):
    """(what, copy) pairs, each of which the schema must reject."""
    out = []

    def change(what, edit):
        d = copy.deepcopy(doc)
        edit(d)
        out.append((what, d))

    change("no tensors", lambda d: d.pop("tensors"))
    change("tensors named segments",
           lambda d: d.__setitem__("segments", d.pop("tensors")))
    change("an unknown member", lambda d: d.__setitem__("typed", True))
    change("an unknown format", lambda d: d.__setitem__("format", "zip"))
    change("no files", lambda d: d.__setitem__("files", []))
    change("metadata as pairs",
           lambda d: d.__setitem__("metadata", [["k", "v"]]))
    if doc["tensors"]:
        t0 = lambda d: d["tensors"][0]
        change("a tensor without its checksum member",
               lambda d: t0(d).pop("checksum"))
        change("a tensor with an unknown member",
               lambda d: t0(d).__setitem__("segment", 1))
        change("a negative length", lambda d: t0(d).__setitem__("length", -1))
        change("a file index as a string",
               lambda d: t0(d).__setitem__("file", "0"))
        change("a tensor type that is not an MLIR tensor type",
               lambda d: t0(d).__setitem__("type", "f32"))
        if doc["format"] == "vmpk":
            change("a vmpk segment without a checksum",
                   lambda d: t0(d).__setitem__("checksum", None))
            change("a checksum that is not 8 hex digits",
                   lambda d: t0(d).__setitem__("checksum", "12345"))
            change("a vmpk segment without its source",
                   lambda d: t0(d).__setitem__("extra", None))
        else:
            change("a checksum where the format has none",
                   lambda d: t0(d).__setitem__("checksum", "0000abcd"))
        if doc["format"] == "irpa":
            change("an element type where .irpa has none",
                   lambda d: t0(d).__setitem__("element_type", "f32"))
            splats = [i for i, t in enumerate(doc["tensors"])
                      if t["extra"]["kind"] == "splat"]
            if splats:
                change("a splat with an offset",
                       lambda d: d["tensors"][splats[0]].__setitem__(
                           "offset", 0))
        if doc["format"] == "safetensors":
            change("an alignment safetensors does not have",
                   lambda d: t0(d).__setitem__("alignment", 8))
        if doc["format"] == "huggingface":
            change("an alignment safetensors does not have",
                   lambda d: t0(d).__setitem__("alignment", 8))
            change("a tensor of a weight that is not listed",
                   lambda d: t0(d).__setitem__(
                       "extra", {"weight": "nothing", "part": "qweight"}))
            change("a weight without one of its tensors",
                   lambda d: d["extra"]["weights"][0]["tensors"].popitem())
            change("a weight of 7 bits",
                   lambda d: d["extra"]["weights"][0].__setitem__("bits", 7))
            change("an unknown method",
                   lambda d: d["extra"].__setitem__("method", "bnb"))
        if doc["format"] == "gguf":
            change("a GGUF tensor without its alignment",
                   lambda d: t0(d).__setitem__("alignment", None))
    quantized = [i for i, t in enumerate(doc["tensors"]) if t["quant"]]
    if quantized:
        i = quantized[0]
        if doc["tensors"][i]["ggml_type"]:
            change("a quant scheme without a ggml type",
                   lambda d: d["tensors"][i].__setitem__("ggml_type", None))
        else:
            change("a ggml type over a scheme that is not ggml's",
                   lambda d: d["tensors"][i].__setitem__(
                       "ggml_type", {"id": 2, "name": "Q4_0"}))
            change("a ggml scheme without a ggml type",
                   lambda d: d["tensors"][i]["quant"].__setitem__(
                       "scheme", "ggml.q4_0"))
        change("a quant object without its block size",
               lambda d: d["tensors"][i]["quant"].pop("block_size"))
        change("a quant object without its parts",
               lambda d: d["tensors"][i]["quant"].pop("parts"))
        if doc["tensors"][i]["quant"]["parts"]:
            change("a part that names no tensor",
                   lambda d: d["tensors"][i]["quant"]["parts"].__setitem__(
                       "x", "no such tensor"))
            change("a weight of parts without them",
                   lambda d: d["tensors"][i]["quant"].__setitem__(
                       "parts", None))
        else:
            change("ggml blocks with parts",
                   lambda d: d["tensors"][i]["quant"].__setitem__(
                       "parts", {"q": d["tensors"][i]["name"],
                                 "d": d["tensors"][i]["name"]}))
    change("no notes", lambda d: d.pop("notes"))
    change("notes as one string", lambda d: d.__setitem__("notes", "x"))
    if doc["format"] == "onnx":
        t0 = lambda d: d["tensors"][0]
        change("an onnx tensor without its storage",
               lambda d: t0(d)["extra"].pop("storage"))
        change("an alignment ONNX does not have",
               lambda d: t0(d).__setitem__("alignment", 8))
        change("a model file named as external data",
               lambda d: d["files"][0]["extra"].__setitem__(
                   "role", "external data"))
        change("no IR version",
               lambda d: d["extra"].pop("ir_version"))
        typed = [i for i, t in enumerate(doc["tensors"])
                 if t["extra"]["storage"] == "typed"]
        if typed:
            change("a typed field with an offset",
                   lambda d: d["tensors"][typed[0]].__setitem__("offset", 0))
        external = [i for i, t in enumerate(doc["tensors"])
                    if t["extra"]["storage"] == "external"]
        if external:
            change("external data without its location",
                   lambda d: d["tensors"][external[0]]["extra"].__setitem__(
                       "location", None))
    if doc["format"] != "vmpk":
        change("an alias where the format has none",
               lambda d: d["aliases"].append({
                   "name": "a", "type": None, "element_type": None,
                   "shape": None, "target": "x", "extra": None}))
    return out


def main(argv):
    mode = None
    if argv and argv[0] in ("--reject", "--damage"):
        mode = argv.pop(0)
    if len(argv) < 2:
        sys.exit(__doc__)
    with open(argv[0]) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    failed = False
    for path in argv[1:]:
        with open(path) as f:
            doc = json.load(f)
        if mode == "--reject":
            why = problems(validator, doc)
            print("%s: rejected: %s" % (path, why) if why else
                  "%s: FAIL: accepted" % path)
            failed |= why is None
            continue
        why = problems(validator, doc)
        if why:
            print("%s: FAIL: %s" % (path, why))
            failed = True
            continue
        if mode == "--damage":
            copies = damaged(doc)
            accepted = [w for w, d in copies if problems(validator, d) is None]
            for w in accepted:
                print("%s: FAIL: accepted with %s" % (path, w))
            failed |= bool(accepted)
            print("%s: %s, %d damaged copies rejected" %
                  (path, doc["format"], len(copies) - len(accepted)))
            continue
        print("%s: valid %s, %d files, %d tensors, %d aliases, %d metadata" %
              (path, doc["format"], len(doc["files"]), len(doc["tensors"]),
               len(doc["aliases"]), len(doc["metadata"])))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
