#!/usr/bin/env python3
"""Record Salt 3006's answers for brine's ini module test (ini_test.go).

Run from this directory with a Salt 3006 salt-call (not in CI):
    python3 record.py /path/to/salt-call CONFDIR > golden.json
Each case of cases.json runs in order on one copy of sample.ini in a
temporary directory (@DIR@ in the arguments); the golden holds what
salt-call --out json returned (or its error text) and the file after it.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

salt_call, confdir = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
cases = json.load(open(os.path.join(here, "cases.json")))
tmp = tempfile.mkdtemp()
shutil.copy(os.path.join(here, "sample.ini"), os.path.join(tmp, "t.ini"))
out = []
for case in cases:
    cli = [a.replace("@DIR@", tmp) for a in case["cli"]]
    p = subprocess.run([salt_call, "-c", confdir, "--local", "--out", "json"] + cli,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True)
    rec = {"cli": case["cli"]}
    if p.returncode == 0:
        rec["ret"] = json.loads(p.stdout)["local"]
    else:
        text = (p.stdout + p.stderr).strip().splitlines()
        err = [l for l in text if l.startswith("Error running")] or text[-1:]
        rec["error"] = err[0].split("': ", 1)[-1].replace(tmp, "@DIR@")
    path = os.path.join(tmp, case.get("file", "t.ini"))
    rec["file"] = open(path).read() if os.path.isfile(path) else None
    out.append(rec)
shutil.rmtree(tmp)
json.dump(out, sys.stdout, indent=1)
print()
