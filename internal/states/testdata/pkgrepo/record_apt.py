#!/usr/bin/python3
"""Record pkgrepo state cases and pkg.*_repo calls from Salt 3006 for brine's golden tests.

Salt is run as the official onedir build runs on Debian 12, without
python-apt (aptpkg's own SourcesList): /opt/saltoracle/bin/salt-call-noapt
puts a directory first on PYTHONPATH whose aptsources, apt and apt_pkg
packages raise ImportError. Needs root; edits and removes
/etc/apt/sources.list.d/brth7w4*.list only.

Usage: record_apt.py CONFDIR apt_cases_salt.json ../../../modules/testdata/aptpkg/repo_options.salt.json
(- for the first file records only the second). pkg.expand_repo_def is not
called: in Salt 3006 it raises its deprecation error since 2026-01-01, the
states reach _expand_repo_def directly.
"""
import json, os, subprocess, sys

SALT = os.environ.get("SALT_CALL", "/opt/saltoracle/bin/salt-call-noapt")
D = "/etc/apt/sources.list.d"
L = D + "/brth7w4.list"
R = "deb file:/tmp/w1-repo ./"
B = "deb file:/tmp/w1-repo bookworm main"
T = "deb [trusted=yes] file:/tmp/w1-repo ./"
SB = "deb [signed-by=/usr/share/keyrings/w1.gpg] file:/tmp/w1-repo bookworm main"
AS = "deb [arch=amd64 signed-by=/usr/share/keyrings/w1.gpg] file:/tmp/w1-repo bookworm main"
SA = "deb [signed-by=/usr/share/keyrings/w1.gpg arch=amd64] file:/tmp/w1-repo bookworm main"
F = {"file": L, "refresh": False}
states = [
 ("absent no comps", "absent", R, {}, False, R + "\n"),
 ("absent trusted no comps", "absent", T, {}, False, T + "\n"),
 ("absent trusted with comps", "absent", "deb [trusted=yes] file:/tmp/w1-repo bookworm main", {}, False,
  "deb [trusted=yes] file:/tmp/w1-repo bookworm main\n"),
 ("absent signed-by", "absent", SB, {}, False, SB + "\n"),
 ("absent trailing slash differs", "absent", "deb http://example.invalid/debian bookworm contrib", {}, False,
  "deb file:/tmp/w1-repo/ ./ main\ndeb http://example.invalid/debian/ bookworm main contrib\n"),
 ("absent one comp", "absent", "deb http://example.invalid/debian/ bookworm contrib", {}, False,
  "deb http://example.invalid/debian bookworm main contrib\n"),
 ("absent arch differs", "absent", "deb http://example.invalid/debian bookworm main", {}, False,
  "deb [arch=amd64] http://example.invalid/debian bookworm main contrib\n"),
 ("absent disabled line", "absent", "deb http://example.invalid/debian bookworm main", {}, False,
  "# deb http://example.invalid/debian bookworm main\n"),
 ("absent test", "absent", "deb http://example.invalid/debian bookworm main", {}, True,
  "deb http://example.invalid/debian bookworm main\n"),
 ("absent missing", "absent", R, {}, False, None),
 ("managed disabled on enabled", "managed", R, dict(F, disabled=True), False, R + "\n"),
 ("managed enabled on disabled", "managed", R, dict(F), False, "# " + R + "\n"),
 ("managed disabled on disabled", "managed", R, dict(F, disabled=True), False, "# " + R + "\n"),
 ("managed disabled test", "managed", B, dict(F), True, "# " + B + "\n"),
 ("managed comments", "managed", R, dict(F, comments=["foo bar"]), False, R + "\n"),
 ("managed comments new", "managed", B, dict(F, comments=["foo", "bar"]), False, None),
 ("managed line with comment", "managed", B, dict(F), False, B + " # note\n"),
 ("managed other file", "managed", R, {"file": D + "/brth7w4b.list", "refresh": False}, False, R + "\n"),
 ("managed architectures new", "managed", B, dict(F, architectures="amd64"), False, None),
 ("managed architectures again", "managed", B, dict(F, architectures="amd64"), False,
  "deb [arch=amd64] file:/tmp/w1-repo bookworm main\n"),
 ("managed architectures dropped test", "managed", B, dict(F), True, "deb [arch=amd64] file:/tmp/w1-repo bookworm main\n"),
 ("managed arch in line again", "managed", "deb [arch=amd64] file:/tmp/w1-repo bookworm main", dict(F), False,
  "deb [arch=amd64] file:/tmp/w1-repo bookworm main\n"),
 ("managed signed-by same", "managed", SB, dict(F), False, SB + "\n"),
 ("managed signed-by new", "managed", SB, dict(F), False, None),
 ("managed signed-by added test", "managed", SB, dict(F), True, B + "\n"),
 ("managed signed-by added", "managed", SB, dict(F), False, B + "\n"),
 ("managed arch signed-by new", "managed", AS, dict(F), False, None),
 ("managed signed-by arch order again", "managed", SA, dict(F), False, AS + "\n"),
 ("managed signed-by arch order same", "managed", SA, dict(F), False, SA + "\n"),
 ("managed signedby kwarg", "managed", B, dict(F, signedby="/usr/share/keyrings/w1.gpg"), False, B + "\n"),
 ("managed comps kwarg test", "managed", B, dict(F, comps="main,contrib"), True, B + "\n"),
 ("managed comps kwarg", "managed", B, dict(F, comps="main,contrib"), False, B + "\n"),
 ("managed new comp test", "managed", "deb file:/tmp/w1-repo bookworm contrib", dict(F), True, B + "\n"),
 ("managed new comp", "managed", "deb file:/tmp/w1-repo bookworm contrib", dict(F), False, B + "\n"),
 ("managed trusted again", "managed", T, dict(F), False, T + "\n"),
 ("managed trusted again test", "managed", T, dict(F), True, T + "\n"),
 ("managed trusted comps again", "managed", "deb [trusted=yes] file:/tmp/w1-repo bookworm main", dict(F), False,
  "deb [trusted=yes] file:/tmp/w1-repo bookworm main\n"),
 ("managed trusted rewritten", "managed", T, dict(F), False, "deb file:/tmp/w1-repo ./ \n"),
 ("managed no comps again", "managed", R, dict(F), False, R + "\n"),
 ("managed new test", "managed", R, dict(F), True, None),
 ("managed new", "managed", T, dict(F), False, None),
 ("managed new no comps", "managed", R, dict(F), False, None),
 ("managed new comps", "managed", "deb file:/tmp/w1-repo bookworm main contrib", dict(F), False, None),
 ("managed enabled and disabled", "managed", R, dict(F, enabled=True, disabled=True), False, R + "\n"),
 ("managed repo kwarg", "managed", R, dict(F, repo=R), False, None),
 ("managed keeps other lines", "managed", "deb file:/tmp/w1-repo bookworm contrib", dict(F), False,
  "# a comment\n\ndeb [trusted=yes] http://example.invalid/debian bookworm main\n" + B + "\n"),
]
execs = [
 ("get_repo trusted", "pkg.get_repo", [T], {}, T + "\n"),
 ("get_repo trusted comps", "pkg.get_repo", ["deb [trusted=yes] file:/tmp/w1-repo bookworm main"], {},
  "deb [trusted=yes] file:/tmp/w1-repo bookworm main\n"),
 ("get_repo signed-by", "pkg.get_repo", [SB], {}, SB + "\n"),
 ("get_repo no comps", "pkg.get_repo", [R], {}, R + "\n"),
 ("list_repos options", "pkg.list_repos", [], {}, T + "\n" + AS + "\n# " + B + " # note\n"),
 ("mod_repo trusted", "pkg.mod_repo", [T], {"file": L, "refresh": False}, None),
 ("mod_repo trusted existing", "pkg.mod_repo", [T], {"file": L, "refresh": False}, T + "\n"),
 ("mod_repo signed-by arch", "pkg.mod_repo", [SA], {"file": L, "refresh": False}, None),
 ("del_repo trusted", "pkg.del_repo", [T], {}, T + "\n" + B + "\n"),
 ("del_repo no comps", "pkg.del_repo", [R], {}, R + "\n" + B + "\n"),
]
def files():
    out = {}
    for f in sorted(os.listdir(D)):
        if f.startswith("brth7w4"):
            out[D + "/" + f] = open(D + "/" + f).read()
    return out
def clean():
    for f in os.listdir(D):
        if f.startswith("brth7w4"):
            os.remove(D + "/" + f)
def arg(k, v):
    return "%s=%s" % (k, v if isinstance(v, str) else json.dumps(v))
def call(argv):
    p = subprocess.run([SALT, "-c", sys.argv[1], "--local", "--out", "json"] + argv, capture_output=True, text=True)
    try:
        return json.loads(p.stdout)["local"]
    except ValueError:
        if not p.stdout and p.stderr.startswith("Error running '"):
            return {"error": p.stderr.strip()}
        sys.exit("salt-call failed: %s %s" % (argv, p.stdout + p.stderr))
res = []
for title, fun, name, kw, test, before in states if sys.argv[2] != "-" else []:
    clean()
    if before is not None:
        open(L, "w").write(before)
    argv = ["state.single", "pkgrepo." + fun, name] + [arg(k, v) for k, v in kw.items()]
    if test:
        argv.append("test=True")
    ret = list(call(argv).values())[0]
    res.append({"title": title, "fun": "pkgrepo." + fun, "name": name, "kwargs": kw, "test": test,
                "before": {L: before} if before is not None else {},
                "ret": {k: ret[k] for k in ("result", "comment", "changes")}, "after": files()})
    print(title, ret["result"], ret["comment"][:80], file=sys.stderr)
if sys.argv[2] != "-":
    json.dump(res, open(sys.argv[2], "w"), indent=1)
res = []
for title, fun, args, kw, before in execs:
    clean()
    if before is not None:
        open(L, "w").write(before)
    ret = call([fun] + args + [arg(k, v) for k, v in kw.items()])
    case = {"title": title, "fun": fun, "args": args, "kwargs": kw, "before": {L: before} if before is not None else {}}
    if isinstance(ret, dict) and list(ret) == ["error"]:
        case["error"] = ret["error"]
    else:
        if fun == "pkg.list_repos":  # only this test's file
            ret = {k: [e for e in v if e["file"].startswith(L)] for k, v in ret.items()}
            ret = {k: v for k, v in ret.items() if v}
        case["return"] = ret
    case["after"] = files()
    res.append(case)
    print(title, json.dumps(ret)[:100], file=sys.stderr)
clean()
json.dump(res, open(sys.argv[3], "w"), indent=1)
