#!/usr/bin/env python3
"""Record real Salt's results for the user/group golden cases.

Usage (as root, on a throwaway machine with Salt 3006):
    SALT_CALL=/path/to/salt-call record.py CASE.txtar...

Each case holds a comment line "args: ..." (extra state.apply arguments),
setup.sh (shell run before the state), init.sls (the states; {home} is a
scratch directory) and optionally check.sh (shell run after, its output
compared too). The script runs the case through salt-call and writes back
salt.json (the raw output), salt.ids (the brinegold* users and groups
and the day number right after the run) and salt.check. brine's test
(user_salt_test.go) replays the cases and compares. Users and groups
named brinegold* are removed before and after each case.
"""
import json, os, re, subprocess, sys, tempfile, time

SALT = os.environ.get("SALT_CALL", "salt-call")
HOME = "/tmp/brinegold-home"


def parse(path):
    text = open(path).read()
    parts = re.split(r"(?m)^-- (\S+) --\n", text)
    files = {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}
    return parts[0], files


def clean():
    for db, cmd in (("passwd", ["userdel", "-rf"]), ("group", ["groupdel"])):
        out = subprocess.run(["getent", db], capture_output=True, text=True).stdout
        for line in out.splitlines():
            name = line.split(":")[0]
            if name.startswith("brinegold"):
                subprocess.run(cmd + [name], capture_output=True)
    subprocess.run(["rm", "-rf", HOME])
    os.makedirs(HOME)


def sh(script):
    return subprocess.run(["bash", "-c", script.replace("{home}", HOME)],
                          capture_output=True, text=True).stdout


def ids():
    lines = []
    for db in ("passwd", "group"):
        out = subprocess.run(["getent", db], capture_output=True, text=True).stdout
        lines += [db + ":" + l for l in out.splitlines() if l.startswith("brinegold")]
    lines.append("today:%d" % (int(time.time()) // 86400))
    return "\n".join(lines) + "\n"


def record(path):
    comment, files = parse(path)
    m = re.search(r"(?m)^args:(.*)$", comment)
    args = m.group(1).split() if m else []
    with tempfile.TemporaryDirectory() as conf:
        os.makedirs(conf + "/srv")
        open(conf + "/srv/case.sls", "w").write(files["init.sls"].replace("{home}", HOME))
        open(conf + "/minion", "w").write(
            "file_client: local\nroot_dir: %s/root\nfile_roots:\n  base:\n    - %s/srv\n" % (conf, conf))
        clean()
        sh(files.get("setup.sh", ""))
        out = subprocess.run([SALT, "-c", conf, "--local", "--out", "json", "state.apply", "case"] + args,
                             capture_output=True, text=True).stdout
        files["salt.ids"] = ids()
        if "check.sh" in files:
            files["salt.check"] = sh(files["check.sh"])
        clean()
    files["salt.json"] = json.dumps(json.loads(out), indent=1) + "\n"
    order = ["setup.sh", "init.sls", "check.sh", "salt.json", "salt.ids", "salt.check"]
    with open(path, "w") as f:
        f.write(comment)
        for name in order:
            if name in files:
                f.write("-- %s --\n%s" % (name, files[name]))


for p in sys.argv[1:]:
    record(p)
    print("recorded", p)
