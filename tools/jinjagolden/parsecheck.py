#!/usr/bin/env python3
"""Parse every .sls/.jinja file under the given directories with Python
Jinja2 (Salt's tags stubbed) and with brine's parser (TestAdhocParse), and
report files where one accepts and the other refuses, or the syntax error
message or line differ.

Usage: python3 tools/jinjagolden/parsecheck.py DIR...
"""

import json
import os
import subprocess
import sys
import tempfile

import jinja2
import jinja2.ext
import jinja2.nodes
import jinja2.sandbox

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


class SaltTags(jinja2.ext.Extension):
    tags = {"import_yaml", "import_json", "import_text", "load_yaml", "load_json", "load_text", "profile"}

    def parse(self, parser):
        tok = next(parser.stream)
        if tok.value.startswith("import_"):
            parser.parse_expression()
            parser.stream.expect("name:as")
            parser.stream.expect("name")
            if parser.stream.current.test_any("name:with", "name:without") and parser.stream.look().test("name:context"):
                next(parser.stream)
                next(parser.stream)
            return jinja2.nodes.Output([])
        parser.stream.expect("name:as")
        if tok.value == "profile":
            parser.parse_expression()
            end = "name:endprofile"
        else:
            parser.stream.expect("name")
            end = "name:endload"
        parser.parse_statements((end,), drop_needle=True)
        return jinja2.nodes.Output([])


def main():
    files = []
    for d in sys.argv[1:]:
        for root, _, names in os.walk(d):
            for n in names:
                if n.endswith((".sls", ".jinja", ".j2")):
                    files.append(os.path.join(root, n))
    files.sort()
    env = jinja2.sandbox.SandboxedEnvironment(
        undefined=jinja2.StrictUndefined,
        extensions=["jinja2.ext.do", "jinja2.ext.loopcontrols", SaltTags])
    stub = lambda v, *a, **k: v  # noqa: E731
    for f in ["yaml", "json", "yaml_dquote", "yaml_squote", "yaml_encode", "regex_replace", "traverse",
              "quote", "load_yaml", "load_json", "to_bool", "is_ip", "ipv4", "ipv6", "sha512",
              "regex_escape", "ipwrap", "path_join", "is_ipv4", "regex_search", "regex_match", "unique"]:
        env.filters.setdefault(f, stub)
    env.tests["match"] = stub
    env.tests["list"] = stub
    want = []
    for f in files:
        try:
            env.parse(open(f, encoding="utf-8").read())
            want.append({"ok": True})
        except jinja2.TemplateSyntaxError as e:
            want.append({"ok": False, "msg": e.message, "line": e.lineno})
        except Exception as e:  # noqa: BLE001
            want.append({"ok": False, "msg": str(e), "line": 0})
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tf:
        json.dump(files, tf)
        path = tf.name
    subprocess.run(["go", "test", "-count=1", "-run", "TestAdhocParse", "./internal/jinja/"],
                   cwd=ROOT, env=dict(os.environ, JINJA_PARSE=path), check=True, stdout=subprocess.DEVNULL)
    got = json.load(open(path + ".out"))
    bad = 0
    for f, w, g in zip(files, want, got):
        g = {"ok": g["ok"], "msg": g.get("msg", ""), "line": g.get("line", 0)} if not g["ok"] else g
        if w != g:
            bad += 1
            print(f"{f}\n   py: {w}\n   go: {g}")
    print(f"{bad} of {len(files)} files differ ({sum(1 for w in want if w['ok'])} parse in Python)")


if __name__ == "__main__":
    main()
