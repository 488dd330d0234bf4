#!/usr/bin/env python3
"""Which kernels a change touched: compares two PTX files entry by entry.

usage: scripts/ptx_diff.py OLD.ptx NEW.ptx

Make them with the same nvcc line before and after the change (git stash), e.g.
  nvcc -I include -I bench -O3 -DNDEBUG -arch=sm_90 --expt-relaxed-constexpr --extended-lambda -std=c++17 \\
       -x cu -ptx bench/ghist_bench.cu -o new.ptx
Prints the demangled names of the entries and functions whose PTX differs, and those only in one file; exit status
1 when any differ. A change whose timings were measured on some kernels can then show that the others are untouched.
"""
import re
import subprocess
import sys

ENTRY = re.compile(r"(?:\.visible )?(?:\.weak )?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\S+?)\(")


def functions(path):
    text = open(path).read()
    parts = re.split(r"\n(?=(?:\.visible |\.weak )*\.(?:entry|func)\b)", text)
    found = {}
    for part in parts:
        match = ENTRY.match(part)
        if match:
            # Branch labels are numbered across the file ($L__BB<function>_<block>): a function added before this one
            # renumbers them without changing its code; a part also ends with the next entry's ".globl" comment.
            part = re.sub(r"\$L__BB\d+_", "$L__BB_", part)
            found[match.group(1)] = re.sub(r"\n\s*// \.globl\s+\S+\s*$", "", part)
    return found


def demangle(name):
    try:
        return subprocess.run(["c++filt", name], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return name


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    old, new = functions(argv[0]), functions(argv[1])
    changed = sorted(k for k in old.keys() & new.keys() if old[k] != new[k])
    print(f"{len(old)} / {len(new)} functions, {len(changed)} changed")
    for name in changed:
        print("changed:", demangle(name))
    for name in sorted(old.keys() - new.keys()):
        print("only in the old:", demangle(name))
    for name in sorted(new.keys() - old.keys()):
        print("only in the new:", demangle(name))
    return 1 if changed or old.keys() != new.keys() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
