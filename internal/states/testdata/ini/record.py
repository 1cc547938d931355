#!/usr/bin/env python3
"""Record Salt 3006's returns for brine's ini state test (ini_test.go).

Run from this directory with a Salt 3006 salt-call (not in CI):
    python3 record.py /path/to/salt-call CONFDIR > golden.json
The cases of cases.json run in order (state.single) on one copy of
sample.ini in a temporary directory (@DIR@); the golden holds each
state's result, comment and changes and the file after it. Salt lists
the keys that strict removes in Python set order (random from run to
run); brine uses the file's order, so those comments are rewritten to it
by hand after recording.
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
    args = ["state.single", case["fun"], case["name"].replace("@DIR@", tmp)]
    args += ["sections=" + json.dumps(case["sections"])] if "sections" in case else []
    args += ["{}={}".format(k, v) for k, v in case.get("kwargs", {}).items()]
    p = subprocess.run([salt_call, "-c", confdir, "--local", "--out", "json"] + args,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True)
    ret = list(json.loads(p.stdout)["local"].values())[0]
    rec = {k: ret[k] for k in ("result", "comment", "changes")}
    if rec["comment"].startswith("An exception occurred in this state: Traceback"):
        rec["comment"] = "An exception occurred in this state: " + rec["comment"].strip().splitlines()[-1].split(": ", 1)[1]
    rec = json.loads(json.dumps(rec).replace(tmp, "@DIR@"))
    path = os.path.join(tmp, "t.ini")
    rec["file"] = open(path).read() if os.path.isfile(path) else None
    out.append(rec)
shutil.rmtree(tmp)
json.dump(out, sys.stdout, indent=1)
print()
