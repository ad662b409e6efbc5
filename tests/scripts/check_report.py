#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""check_report.py REPORT MANIFEST: each line of a `qphys verify` report (or its Dask twin's)
gives the verdict make_corpus.py planted (MANIFEST), and every file not in the manifest matched
with no note. Exit 1 naming each wrong line."""
import re
import sys


def main() -> int:
    report = open(sys.argv[1]).read().split("\n")
    planted = {}
    for line in open(sys.argv[2]):
        path, what = line.rstrip("\n").split(": ", 1)
        planted[path] = what
    wrong = []
    lines = [l for l in report if l and not re.match(r"^\d+ files: ", l)]
    seen = set()
    for line in lines:
        path, verdict = line.split(": ", 1)
        seen.add(path)
        what = planted.get(path, "matched")
        if what.startswith("damaged"):
            ok = verdict.startswith("damaged: ")
        elif what.startswith("other version"):
            ok = verdict.startswith("other version: ")
        elif what.startswith("diverged: world hash of step"):
            step = what.split()[-2]
            ok = verdict.startswith(f"diverged at step {step}: world hash ")
        elif what.startswith("diverged: body 1"):
            step = what.split()[-2]
            ok = verdict.startswith(f"diverged at step {step}, body 1: body hash ")
        elif what == "matched: version line 0.0.1":
            ok = verdict.startswith("matched: ") and "(recorded by qphys 0.0.1; " in verdict
        else:
            ok = verdict.startswith("matched: ") and "(recorded by" not in verdict
        if not ok:
            wrong.append(f"{path}: planted '{what}', reported '{verdict}'")
    missing = set(planted) - seen
    wrong += [f"{p}: planted '{planted[p]}', not reported" for p in sorted(missing)]
    for w in wrong:
        print("FAIL", w)
    if not wrong:
        print(f"PASS {len(lines)} verdicts as planted ({len(planted)} altered on purpose)")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
