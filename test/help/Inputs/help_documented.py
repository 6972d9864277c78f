# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""help_documented.py TOOLS_MD README TOOL...: fails unless each TOOL's
--help and the documentation agree:

- every option --help lists (for vmpack-opt: vmpack's passes and their
  options; the rest is mlir-opt's) appears in the tool's sections of
  TOOLS_MD (docs/tools.md, "Every option of vmpack's tools"), and
- every option in the first column of those sections' tables, and every
  option the README's section on the tool names, is one --help lists,
  spelled the same.

A tool's sections are those whose "## " (TOOLS_MD) or "### " (README)
heading names it in backquotes. Prints one line per tool.
"""
import re
import subprocess
import sys

LONG = re.compile(r"(?<![\w-])--[A-Za-z0-9][A-Za-z0-9-]*")
SHORT = re.compile(r"(?<![\w-])-[A-Za-z](?![\w-])")


def sections(text, level, tool):
    """The text of every section at `level` whose heading names `tool`."""
    out, keep = [], False
    for line in text.splitlines():
        if line.startswith("#"):
            hashes = len(line) - len(line.lstrip("#"))
            if hashes <= level:
                keep = hashes == level and ("`" + tool) in line
        if keep:
            out.append(line)
    return "\n".join(out)


def help_options(tool, text):
    """The options --help lists."""
    if tool != "vmpack-opt":
        return set(LONG.findall(text)) | set(SHORT.findall(text))
    # vmpack-opt: each --vmpack-* pass and the options indented under it.
    found, indent = set(), None
    for line in text.splitlines():
        stripped = line.lstrip()
        depth = len(line) - len(stripped)
        if stripped.startswith("--vmpack-"):
            indent = depth
            found.add(LONG.match(stripped).group(0))
        elif indent is not None and depth > indent and stripped.startswith("--"):
            found.add(LONG.match(stripped).group(0))
        else:
            indent = None
    return found


def table_options(section):
    """Options in the first column of the section's tables."""
    found = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            cell = line.split("|")[1]
            found |= set(LONG.findall(cell)) | set(SHORT.findall(cell))
    return found


def mentioned(option, text):
    return re.search(r"(?<![\w-])" + re.escape(option) + r"(?![\w-])",
                     text) is not None


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    with open(argv[0]) as f:
        tools_md = f.read()
    with open(argv[1]) as f:
        readme = f.read()
    failed = False
    for tool in argv[2:]:
        text = subprocess.run([tool, "--help"], check=True,
                              capture_output=True, text=True).stdout
        listed = help_options(tool, text)
        doc = sections(tools_md, 2, tool)
        readme_section = sections(readme, 3, tool)
        if not listed or not doc or not readme_section:
            print("%s: FAIL: no options in --help, or no section in %s or %s"
                  % (tool, argv[0], argv[1]))
            failed = True
            continue
        problems = ["%s is in --help but not in %s" % (o, argv[0])
                    for o in sorted(listed) if not mentioned(o, doc)]
        documented = table_options(doc)
        if tool == "vmpack-opt":
            documented |= {o for o in LONG.findall(doc)
                           if o.startswith("--vmpack-")}
        problems += ["%s is in a table of %s but not in --help" % (o, argv[0])
                     for o in sorted(documented) if o not in listed]
        named = set(LONG.findall(readme_section))
        if tool == "vmpack-opt":
            named = {o for o in named if o.startswith("--vmpack-")}
        problems += ["%s is in the README but not in --help" % o
                     for o in sorted(named) if o not in listed]
        for p in problems:
            print("%s: FAIL: %s" % (tool, p))
        failed |= bool(problems)
        if not problems:
            print("%s: %d options in --help, all documented; %d in tables "
                  "and %d in the README, all in --help" %
                  (tool, len(listed), len(documented), len(named)))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
