#!/usr/bin/env python3
"""Record what Salt 3006's salt-call returns for a list of calls.

Usage (on a machine with the Salt oracle):
    python3 record.py NAME.steps.json > NAME.golden.json

A steps file is {"files": {rel: text}, "minion": "extra minion config",
"steps": [{"name": ..., "argv": [fun, arg, ...], "cwd": rel-or-absent,
"path": "dir prepended to PATH", "capture": [rel, ...]}]}. "{d}" in any
string is the scratch directory holding the files. Every step's stdout
(the "local" value), its error line and the captured files afterwards
are written with the scratch directory put back as "{d}".
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SALT_CALL = os.environ.get("SALT_CALL", "/opt/saltoracle/bin/salt-call")


def sub(v, d):
    if isinstance(v, str):
        return v.replace("{d}", d)
    if isinstance(v, list):
        return [sub(x, d) for x in v]
    if isinstance(v, dict):
        return {k: sub(x, d) for k, x in v.items()}
    return v


def main():
    spec = json.load(open(sys.argv[1]))
    d = tempfile.mkdtemp(prefix="saltrec-")
    conf = os.path.join(d, "conf")
    os.makedirs(conf)
    with open(os.path.join(conf, "minion"), "w") as f:
        f.write("file_client: local\nroot_dir: {}\n".format(os.path.join(d, "root")))
        f.write(sub(spec.get("minion", ""), d))
    for rel, text in spec.get("files", {}).items():
        p = os.path.join(d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(sub(text, d))
        if rel.startswith("bin/"):
            os.chmod(p, 0o755)
    out = []
    for step in spec["steps"]:
        argv = sub(step["argv"], d)
        env = dict(os.environ)
        if "path" in step:
            env["PATH"] = sub(step["path"], d) + ":" + env["PATH"]
        cwd = os.path.join(d, step["cwd"]) if "cwd" in step else d
        p = subprocess.run([SALT_CALL, "-c", conf, "--local", "--out", "json", "--log-level", "quiet"] + argv,
                           capture_output=True, text=True, cwd=cwd, env=env)
        rec = {"name": step["name"], "argv": step["argv"], "rc": p.returncode}
        if "cwd" in step:
            rec["cwd"] = step["cwd"]
        if "path" in step:
            rec["path"] = step["path"]
        try:
            rec["want"] = json.loads(p.stdout)["local"]
        except ValueError:
            lines = p.stderr.rstrip().splitlines()
            starts = [i for i, l in enumerate(lines) if l.startswith("Error running '")]
            if starts:
                rec["error"] = "\n".join(lines[starts[-1]:])
            else:
                lines = [l for l in lines if l.strip()]
                rec["error"] = lines[-1] if lines else p.stdout
        caps = {}
        for rel in step.get("capture", []):
            try:
                caps[rel] = open(os.path.join(d, rel)).read()
            except OSError:
                caps[rel] = None
        if caps:
            rec["files"] = caps
        out.append(rec)
    back = json.loads(json.dumps(out).replace(json.dumps(d)[1:-1], "{d}"))
    json.dump({"files": spec.get("files", {}), "minion": spec.get("minion", ""), "steps": back},
              sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    shutil.rmtree(d)


main()
