#!/usr/bin/env python3
"""Copy the Jinja conformance cases recorded from real Salt 3006
(/work/shared/conformance/cases/jinja, those rendered with
`slsutil.renderer salt://t/X.jinja default_renderer=jinja`) into
internal/jinja/testdata/conformance/ in the golden txtar format: the
template, the other files of the state tree, and Salt's rendered text.

Usage: python3 tools/jinjagolden/import_conformance.py [CASES_DIR]
"""

import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "internal", "jinja", "testdata", "conformance")
SRC = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/conformance/cases/jinja"


def main():
    os.makedirs(OUT, exist_ok=True)
    n = 0
    for case in sorted(glob.glob(os.path.join(SRC, "*", "case.json"))):
        d = os.path.dirname(case)
        spec = json.load(open(case))
        argv = spec.get("argv", [])
        if not argv or argv[0] != "slsutil.renderer":
            continue
        main_name = argv[1][len("salt://"):]
        expected = json.load(open(os.path.join(d, "expected.json")))
        states = os.path.join(d, "states")
        parts = []
        files = {}
        for path in sorted(glob.glob(os.path.join(states, "**", "*"), recursive=True)):
            if os.path.isfile(path):
                files[os.path.relpath(path, states)] = open(path, encoding="utf-8").read()
        parts.append("-- template --\n" + files.pop(main_name) + "\n")
        parts.append("-- name --\n" + main_name + "\n")
        for k, v in files.items():
            parts.append(f"-- file {k} --\n{v}\n")
        parts.append("-- description --\n" + spec.get("description", "") + "\n")
        if expected.get("retcode", 0) == 0:
            parts.append("-- output --\n" + json.dumps(expected["return"], ensure_ascii=False) + "\n")
        else:
            continue
        with open(os.path.join(OUT, os.path.basename(d) + ".txtar"), "w", encoding="utf-8") as f:
            f.write("".join(parts))
        n += 1
    print(f"{n} conformance cases written to {OUT}")


if __name__ == "__main__":
    main()
