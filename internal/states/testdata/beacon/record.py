#!/usr/bin/env python3
"""Record what Salt 3006 returns for the steps of steps.txt (the goldens
NN.salt.json of beacon_salt_test.go).

It writes a minion config (masterless: file_client local, master_type
disable) into a work directory, starts Salt's salt-minion daemon on it (the
beacons.* functions talk to the daemon), runs every step with salt-call
--local and stops the daemon (a step "!stop-daemon" stops it early). The
SLS files say SCRATCH for a scratch directory; the goldens say it back.
Durations and start times are dropped and a traceback is cut to its last
line, as brine reports exceptions.

    record.py --salt-src /tmp/saltsrc --extra-path DIR_WITH_PYINOTIFY --work /tmp/rec

pyinotify (Debian's python3-pyinotify, unpacked anywhere) makes Salt's
inotify beacon available, as brine's always is.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def norm(text, scratch):
    data = json.loads(text)["local"]
    if isinstance(data, dict):
        for v in data.values():
            if not isinstance(v, dict):
                continue
            v.pop("start_time", None)
            v.pop("duration", None)
            c = v.get("comment")
            if isinstance(c, str) and "Traceback (most recent call last)" in c:
                v["comment"] = "An exception occurred in this state: " + c.strip().splitlines()[-1]
    return json.loads(json.dumps(data).replace(scratch, "SCRATCH"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--salt-src", required=True)
    ap.add_argument("--extra-path", default="")
    ap.add_argument("--work", required=True)
    ap.add_argument("--python", default="/usr/bin/python3", help="the Python Salt runs with")
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    conf, roots, scratch = (os.path.join(work, d) for d in ("conf", "states", "scratch"))
    os.makedirs(os.path.join(conf, "minion.d"))
    os.makedirs(scratch)
    for dirpath, _, files in os.walk(os.path.join(HERE, "states")):
        rel = os.path.relpath(dirpath, os.path.join(HERE, "states"))
        os.makedirs(os.path.join(roots, rel), exist_ok=True)
        for f in files:
            with open(os.path.join(dirpath, f)) as src, open(os.path.join(roots, rel, f), "w") as dst:
                dst.write(src.read().replace("SCRATCH", scratch))
    with open(os.path.join(conf, "minion"), "w") as f:
        f.write(f"id: rec\nfile_client: local\nmaster_type: disable\nroot_dir: {work}/root\n"
                f"file_roots:\n  base:\n    - {roots}\n")
    env = dict(os.environ, PYTHONPATH=":".join(p for p in (a.salt_src, a.extra_path) if p))
    daemon = subprocess.Popen([a.python, os.path.join(a.salt_src, "scripts", "salt-minion"), "-c", conf],
                              env=env, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    call = [a.python, os.path.join(a.salt_src, "scripts", "salt-call"), "-c", conf, "--local", "--out", "json"]
    try:
        for _ in range(60):
            out = subprocess.run(call + ["beacons.list", "return_yaml=False"], env=env, capture_output=True, text=True).stdout
            if out and json.loads(out)["local"] is not None:
                break
            time.sleep(1)
        with open(os.path.join(HERE, "steps.txt")) as f:
            steps = [l.split() for l in f if l.strip() and not l.startswith("#")]
        for i, step in enumerate(steps, 1):
            if step == ["!stop-daemon"]:
                os.killpg(daemon.pid, signal.SIGTERM)
                daemon.wait()
                continue
            res = subprocess.run(call + step, env=env, capture_output=True, text=True)
            if not res.stdout:
                sys.exit("%s: %s" % (" ".join(step), res.stderr))
            out = res.stdout
            bc = os.path.join(conf, "minion.d", "beacons.conf")
            rec = {"step": " ".join(step), "ret": norm(out, scratch),
                   "beacons_conf": open(bc).read().replace(scratch, "SCRATCH") if os.path.exists(bc) else None}
            with open(os.path.join(HERE, "%02d.salt.json" % i), "w") as f:
                json.dump(rec, f, indent=1)
                f.write("\n")
            print(i, " ".join(step))
    finally:
        if daemon.poll() is None:
            os.killpg(daemon.pid, signal.SIGTERM)
            daemon.wait()


main()
