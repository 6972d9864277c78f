#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Runs vmpack's corpus of real MLIR from other projects (test/corpus/cases).
#
# For every case, from the text and from MLIR bytecode of it (written by
# mlir-opt --emit-bytecode), in each of the three encodings (packed, word,
# byte), it compiles with vmpack-compile and then either
#   - "pass":   vmpack-dump --verify accepts the archive, and the program that
#               vmpack-dump --mlir rebuilds, printed in generic form by
#               mlir-opt, is exactly the input printed the same way; or
#   - "reject": vmpack-compile exits non-zero with a located diagnostic
#               (FILE:LINE:COL: error: ...) containing the expected text, and
#               leaves nothing behind in its output directory.
# A case gets its verdict only when all six variants agree. With
# --encodings=rotate (lit's choice under the sanitizers, where each tool
# start costs far more), each source is compiled in one encoding, rotated
# from case to case so that every encoding is still run from text and
# from bytecode. The expected
# verdict of each case is in expected.txt, for the whole case or, written
# CASE[text] and CASE[bytecode], for each source; any difference, any case
# without an expected verdict and any expected case without a file fails
# the run, listing the cases.
#
# Cases that mlir-opt cannot parse (custom syntax of an unregistered
# dialect) are compiled from text only; cases that are bytecode already
# (.mlirbc, .mlir.bc: written by another producer) from bytecode only.

import argparse
import concurrent.futures
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys

ENCODINGS = ("packed", "word", "byte")
LOCATED_ERROR = re.compile(r"^(?:[^\s:][^:]*|-):\d+:\d+: error: (.*)$", re.M)
SANITIZER_REPORT = re.compile(r"Sanitizer|runtime error:")
SPLIT_MARKER = "// -----"
TIMEOUT = 120


def brief(text, lines=8):
    """The first lines of a tool's stderr (a crash prints a long stack)."""
    text = text.strip().splitlines()
    return "\n".join(text[:lines] + (["..."] if len(text) > lines else []))


def crash(rc, err):
    """A short, stable account of a crash: the signal and the innermost
    frames of LLVM's stack dump that are not its signal handling."""
    try:
        name = signal.Signals(-rc).name
    except ValueError:
        name = "signal %d" % -rc
    frames = [m.group(1) for m in re.finditer(
        r"^\s*#\d+ 0x[0-9a-f]+ (\S.*?) \(", err, re.M)]
    frames = [f for f in frames if not f.startswith(("llvm::sys::", "0x"))]
    text = "crashed (%s)" % name
    if frames:
        text += " in " + " <- ".join(frames[:4])
    lines = [l for l in err.strip().splitlines()
             if l and not l.startswith(("PLEASE", "Stack dump", "0."))
             and not re.match(r"\s*#\d+ ", l)]
    return text + ("\n" + brief("\n".join(lines), 4) if lines else "")


def run(cmd, **kwargs):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=TIMEOUT, **kwargs)
        return p.returncode, p.stdout.decode("utf-8", "replace"), \
            p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %d s: %s" % (TIMEOUT, " ".join(cmd))


def read_expected(path):
    expected = {}
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        fields = line.split(None, 2)
        if fields[1] not in ("pass", "reject") or \
                (fields[1] == "reject") != (len(fields) == 3):
            sys.exit("%s:%d: expected 'CASE pass' or 'CASE reject MESSAGE'"
                     % (path, number))
        if fields[0] in expected:
            sys.exit("%s:%d: %s listed twice" % (path, number, fields[0]))
        expected[fields[0]] = (fields[1], fields[2] if len(fields) == 3 else "")
    return expected


def is_bytecode(name):
    return name.endswith(".mlirbc") or name.endswith(".mlir.bc")


def find_cases(root):
    cases = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith(".mlir") or is_bytecode(name):
                cases.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(c.replace(os.sep, "/") for c in cases)


def print_generic(mlir_opt, texts, jobs):
    """Prints each MLIR text in generic form: one mlir-opt run for all of
    them (--split-input-file), or one run each when that run fails. Returns
    (rc, output or error) per text."""
    joined = ("\n%s\n" % SPLIT_MARKER).join(texts)
    cmd = [mlir_opt, "--allow-unregistered-dialect", "--mlir-print-op-generic",
           "--split-input-file", "-"]
    if texts and all(SPLIT_MARKER not in t for t in texts):
        rc, out, _ = run(cmd, input=joined.encode())
        parts = re.split(r"^%s\n" % re.escape(SPLIT_MARKER), out, flags=re.M)
        if rc == 0 and len(parts) == len(texts):
            return [(0, p.strip() + "\n") for p in parts]
    single = [mlir_opt, "--allow-unregistered-dialect",
              "--mlir-print-op-generic", "-"]

    def one(text):
        rc, out, err = run(single, input=text.encode())
        return (0, out.strip() + "\n") if rc == 0 else (rc, err)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return list(pool.map(one, texts))


class Variant:
    def __init__(self, case, source, encoding, input_path, directory):
        self.case, self.source, self.encoding = case, source, encoding
        self.input_path, self.directory = input_path, directory
        self.verdict = None      # "pass", "reject" or "fail"
        self.detail = ""         # rejection message or why it failed
        self.rebuilt = None      # vmpack-dump --mlir output

    @property
    def name(self):
        return "%s/%s" % (self.source, self.encoding)


def compile_variant(v, tools):
    os.makedirs(v.directory)
    archive = os.path.join(v.directory, "out.vmpk")
    rc, _, err = run([tools.compile, v.input_path, "-o", archive,
                      "--encoding=" + v.encoding, "--no-progress"])
    if SANITIZER_REPORT.search(err):
        v.verdict, v.detail = "fail", "sanitizer report: " + brief(err, 40)
        return
    if rc != 0:
        left = os.listdir(v.directory)
        errors = LOCATED_ERROR.findall(err)
        if rc < 0:
            v.verdict, v.detail = "fail", "vmpack-compile " + crash(rc, err)
        elif rc > 1:
            v.verdict, v.detail = "fail", "exit code %d: %s" % (rc, brief(err))
        elif not errors:
            v.verdict, v.detail = "fail", "rejected without a located error: " \
                + err.strip()
        elif left:
            v.verdict, v.detail = "fail", "rejected but left %s" % left
        else:
            v.verdict, v.detail = "reject", err.strip()
        return
    rc, out, err = run([tools.dump_verify, "--verify", archive])
    if rc != 0:
        v.verdict, v.detail = "fail", "vmpack-dump --verify: " + (err or out).strip()
        return
    rc, out, err = run([tools.dump, "--mlir", archive])
    if rc < 0:
        v.verdict, v.detail = "fail", "vmpack-dump --mlir " + crash(rc, err)
        return
    if rc != 0 or SANITIZER_REPORT.search(err):
        v.verdict, v.detail = "fail", "vmpack-dump --mlir (exit code %d): %s" % (rc, brief(err))
        return
    v.rebuilt = out


def summarize(variants):
    """The verdict of a case from its variants, and the details to show."""
    verdicts = {v.verdict for v in variants}
    if verdicts == {"pass"}:
        return "pass", []
    if verdicts == {"reject"}:
        return "reject", []
    # Variants that fail the same way are listed together.
    groups = {}
    for v in variants:
        if v.verdict != "pass":
            what = v.verdict + (": " + v.detail if v.detail else "")
            groups.setdefault(what, []).append(v.name)
    return "fail", ["%s: %s" % (", ".join(names), what)
                    for what, names in groups.items()]


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", required=True)
    parser.add_argument("--expected", required=True)
    parser.add_argument("--work", required=True, help="an empty scratch directory")
    parser.add_argument("--vmpack-compile", default="vmpack-compile")
    parser.add_argument("--vmpack-dump", default="vmpack-dump")
    parser.add_argument("--vmpack-dump-verify", default=None,
                        help="tool for --verify (default: --vmpack-dump)")
    parser.add_argument("--mlir-opt", default=None)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--filter", default="", help="only cases containing this")
    parser.add_argument("--encodings", choices=("all", "rotate"), default="all",
                        help="every source in every encoding (default), or "
                        "each source in one encoding, rotated across cases")
    args = parser.parse_args()

    mlir_opt = args.mlir_opt or shutil.which("mlir-opt") or shutil.which("mlir-opt-22")
    if not mlir_opt:
        sys.exit("run_corpus.py: no mlir-opt on PATH")

    class tools:
        compile = args.vmpack_compile
        dump = args.vmpack_dump
        dump_verify = args.vmpack_dump_verify or args.vmpack_dump

    expected = read_expected(args.expected)
    cases = [c for c in find_cases(args.cases) if args.filter in c]
    problems = []

    # The reference: every case printed in generic form by mlir-opt.
    text_cases = [c for c in cases if not is_bytecode(c)]
    texts = [open(os.path.join(args.cases, c), encoding="utf-8").read()
             for c in text_cases]
    references = dict(zip(text_cases, print_generic(mlir_opt, texts, args.jobs)))
    for case in cases:
        if is_bytecode(case):
            rc, out, err = run([mlir_opt, "--allow-unregistered-dialect",
                                "--mlir-print-op-generic",
                                os.path.join(args.cases, case)])
            references[case] = (0, out.strip() + "\n") if rc == 0 else (rc, err)

    # Bytecode of every text case mlir-opt can parse.
    def write_bytecode(index):
        case = cases[index]
        if is_bytecode(case) or references[case][0] != 0:
            return None
        bytecode = os.path.join(args.work, "%03d" % index, "input.mlirbc")
        rc, _, err = run([mlir_opt, "--allow-unregistered-dialect", "--emit-bytecode",
                          os.path.join(args.cases, case), "-o", bytecode])
        if rc != 0:
            problems.append("%s: mlir-opt --emit-bytecode failed: %s" % (case, err))
            return None
        return bytecode
    for index in range(len(cases)):
        os.makedirs(os.path.join(args.work, "%03d" % index))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        bytecodes = list(pool.map(write_bytecode, range(len(cases))))

    variants = {c: [] for c in cases}
    for index, case in enumerate(cases):
        path = os.path.join(args.cases, case)
        if is_bytecode(case):
            sources = [("bytecode", path)]
        else:
            sources = [("text", path)]
            if bytecodes[index]:
                sources.append(("bytecode", bytecodes[index]))
        for number, (source, path) in enumerate(sources):
            encodings = ENCODINGS
            if args.encodings == "rotate":
                encodings = [ENCODINGS[(index + number) % len(ENCODINGS)]]
            for encoding in encodings:
                variants[case].append(Variant(
                    case, source, encoding, path,
                    os.path.join(args.work, "%03d" % index, "%s-%s" % (source, encoding))))

    everything = [v for c in cases for v in variants[c]]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(lambda v: compile_variant(v, tools), everything))

    rebuilt = [v for v in everything if v.verdict is None]
    printed = print_generic(mlir_opt, [v.rebuilt for v in rebuilt], args.jobs)
    for v, (rc, text) in zip(rebuilt, printed):
        reference = references[v.case]
        if rc != 0:
            v.verdict, v.detail = "fail", "rebuilt program does not parse: " + text.strip()
        elif reference[0] != 0:
            v.verdict, v.detail = "fail", "compiled, but mlir-opt cannot parse the input"
        elif text != reference[1]:
            diff = difflib.unified_diff(reference[1].splitlines(), text.splitlines(),
                                        "input (generic)", "rebuilt (generic)",
                                        lineterm="", n=0)
            v.verdict, v.detail = "fail", "round trip differs:\n    " + \
                "\n    ".join(list(diff)[:24])
        else:
            v.verdict = "pass"

    # What is judged: a whole case, or each of its sources when expected.txt
    # gives CASE[text] and CASE[bytecode] separately.
    subjects = []
    for case in cases:
        sources = []
        for v in variants[case]:
            if v.source not in sources:
                sources.append(v.source)
        if any("%s[%s]" % (case, s) in expected for s in sources):
            subjects += [("%s[%s]" % (case, s), [v for v in variants[case] if v.source == s])
                         for s in sources]
        else:
            subjects.append((case, variants[case]))
    if not args.filter:
        known = {key for key, _ in subjects}
        problems += ["%s: no expected verdict in %s" % (k, args.expected)
                     for k in sorted(known) if k not in expected]
        problems += ["%s: expected, but there is no such case" % k
                     for k in expected if k not in known]

    width = max([len(k) for k, _ in subjects] + [10])
    mismatches = []
    print("# Actual verdicts (%d cases; text and bytecode x %s)" %
          (len(cases), ", ".join(ENCODINGS) if args.encodings == "all"
           else "one of " + ", ".join(ENCODINGS) + ", rotated"))
    for key, judged in subjects:
        verdict, details = summarize(judged)
        want, message = expected.get(key, (None, ""))
        shown = verdict
        if verdict == "reject":
            first = LOCATED_ERROR.search(judged[0].detail).group(1)
            shown = "reject  %s" % first
            missing = [v.name for v in judged if message not in v.detail]
            if want == "reject" and missing:
                details = ["message lacks '%s' in %s" % (message, ", ".join(missing))]
                verdict = "reject (other message)"
        print("%-*s  %s" % (width, key, shown))
        if want is not None and (verdict != want or details):
            mismatches.append((key, want, verdict, details))

    for case, want, verdict, details in mismatches:
        problems.append("%s: expected %s, got %s%s" % (
            case, want, verdict, "".join("\n  " + d for d in details)))
    if problems:
        print("\n%d problem(s):" % len(problems))
        for p in problems:
            print(p)
        print("\nFAILED cases: " + " ".join(sorted({p.split(":", 1)[0] for p in problems})))
        return 1
    print("\nall %d cases as expected" % len(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
