#!/usr/bin/env python3
"""Regenerate brine's Jinja golden corpus from Python's Jinja2.

Reads case files (tools/jinjagolden/cases/*.txt) and writes one txtar file
per case under internal/jinja/testdata/golden/, holding the template, any
extra files, variables and options, and the exact output (or the error)
that Jinja2 3.1 produces when configured as Salt configures it:

- jinja2.sandbox.SandboxedEnvironment with StrictUndefined,
- the do and loopcontrols extensions,
- Salt's finalize (dicts and lists printed with Python repr),
- keep_trailing_newline off, and a final newline added back when the
  source ends with one (Salt's render_jinja_tmpl rule).

Case file format:

    === name                  one case; the template follows up to the next
    template text...          "===" or "---" line
    --- file NAME             an extra template (for include/import/extends)
    --- vars                  JSON object of render variables
    --- options               words: trim_blocks lstrip_blocks lenient autoescape
    ### prefix                every following non-empty line (until the next
    line template 1           "===" or "###") is its own one-line case
    line template 2           named prefix_NNN

Usage: python3 tools/jinjagolden/gen.py   (from the repository root)
"""

import collections
import glob
import json
import os
import re
import sys
import traceback

import jinja2
import jinja2.sandbox
import warnings

warnings.simplefilter("ignore", SyntaxWarning)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "internal", "jinja", "testdata", "golden")
MAIN = "main.jinja"


class PrintableDict(collections.OrderedDict):
    """Salt's PrintableDict: prints like a plain dict."""

    def __str__(self):
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self.items()) + "}"

    __repr__ = __str__


def finalizer(data):
    def explore(d):
        if isinstance(d, (dict, collections.OrderedDict)):
            return PrintableDict([(k, explore(v)) for k, v in d.items()])
        if isinstance(d, (list, tuple, set)):
            return d.__class__([explore(v) for v in d])
        return d

    return explore(data)


def parse_cases(path):
    cases = []
    cur = None
    section = None
    prefix = None
    count = 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()

    def close():
        nonlocal cur
        if cur is not None:
            for k in list(cur["parts"]):
                cur["parts"][k] = "\n".join(cur["parts"][k])
                if k == "template" or k.startswith("file "):
                    cur["parts"][k] += "\n"
            cases.append(cur)
        cur = None

    for line in lines:
        if line.startswith("=== "):
            close()
            prefix = None
            cur = {"name": line[4:].strip(), "parts": {"template": []}}
            section = "template"
            continue
        if line.startswith("### "):
            close()
            prefix = line[4:].strip()
            count = 0
            continue
        if prefix is not None:
            if line.strip() == "" or line.startswith("#"):
                continue
            count += 1
            cases.append({"name": f"{prefix}_{count:03d}", "parts": {"template": line}})
            continue
        if cur is None:
            continue
        if line.startswith("--- "):
            section = line[4:].strip()
            cur["parts"][section] = []
            continue
        cur["parts"][section].append(line)
    close()
    return cases


def render_case(case):
    parts = case["parts"]
    src = parts["template"]
    files = {MAIN: src}
    for k, v in parts.items():
        if k.startswith("file "):
            files[k[5:].strip()] = v
    opts = parts.get("options", "").split()
    env_args = {
        "extensions": ["jinja2.ext.do", "jinja2.ext.loopcontrols"],
        "loader": jinja2.FunctionLoader(
            lambda n: (files[n], n, lambda: True) if n in files else None
        ),
    }
    if "trim_blocks" in opts:
        env_args["trim_blocks"] = True
    if "lstrip_blocks" in opts:
        env_args["lstrip_blocks"] = True
    if "autoescape" in opts:
        env_args["autoescape"] = True
    if "lenient" not in opts:
        env_args["undefined"] = jinja2.StrictUndefined
    env = jinja2.sandbox.SandboxedEnvironment(**env_args)
    env.finalize = finalizer
    variables = json.loads(parts.get("vars", "") or "{}", object_pairs_hook=collections.OrderedDict)
    variables = {k: plain(v) for k, v in variables.items()}
    try:
        tmpl = env.get_template(MAIN)
        out = tmpl.render(**variables)
        if src.endswith("\n"):
            out += "\n"
        return {"output": out}
    except Exception as exc:  # noqa: BLE001
        return {"error": describe_error(exc, files)}


def plain(v):
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def describe_error(exc, files):
    name = type(exc).__name__
    line = getattr(exc, "lineno", None)
    tname = getattr(exc, "name", None)
    if line is None:
        for fr in reversed(traceback.extract_tb(exc.__traceback__)):
            if fr.filename in files:
                line = fr.lineno
                tname = fr.filename
                break
    msg = str(exc)
    if type(exc) is SyntaxError and exc.filename in files:
        # Python's compiler refusing Jinja's generated code: the line is
        # one of the generated module, so it is left out (0: not compared).
        msg, line = exc.msg, 0
    if isinstance(exc, KeyError) and exc.args:
        msg = repr(exc.args[0])
    return {"type": name, "message": msg, "line": line or 0, "template": tname or ""}


def txtar(case, result):
    parts = case["parts"]
    out = []
    out.append(f"-- template --\n{parts['template']}\n")  # reader strips one \n
    for k, v in parts.items():
        if k.startswith("file "):
            out.append(f"-- {k} --\n{v}\n")  # reader strips one \n
    if parts.get("vars"):
        out.append(f"-- vars --\n{parts['vars']}\n")
    if parts.get("options"):
        out.append(f"-- options --\n{parts['options']}\n")
    if "output" in result:
        out.append("-- output --\n" + json.dumps(result["output"], ensure_ascii=False) + "\n")
    else:
        out.append("-- error --\n" + json.dumps(result["error"], ensure_ascii=False) + "\n")
    return "".join(out)


def main():
    os.makedirs(OUT, exist_ok=True)
    for old in glob.glob(os.path.join(OUT, "*.txtar")):
        os.remove(old)
    names = set()
    n = 0
    for path in sorted(glob.glob(os.path.join(HERE, "cases", "*.txt"))):
        group = os.path.splitext(os.path.basename(path))[0]
        for case in parse_cases(path):
            name = f"{group}__{case['name']}"
            if name in names:
                sys.exit(f"duplicate case {name}")
            names.add(name)
            result = render_case(case)
            with open(os.path.join(OUT, name + ".txtar"), "w", encoding="utf-8") as f:
                f.write(txtar(case, result))
            n += 1
    print(f"{n} cases written to {OUT} (jinja2 {jinja2.__version__})")
    write_bulk()


def write_bulk():
    """Write testdata/golden_bulk.json: thousands of generated one-line
    templates (values x filters, operators, tests, expressions; see
    diff.py) with Jinja2's result for each."""
    import diff  # noqa: PLC0415 (same directory)

    out = []
    srcs = [(t, "", False) for t in diff.templates()]
    srcs += [(t, o, False) for t, o in diff.ws_templates()]
    srcs += [(t, o, False) for t, o in diff.lenient_templates()]
    srcs += [(t, o, True) for t, o in diff.prog_templates(800)]
    srcs += [(t, o, True) for t, o in diff.ext_templates(400)]
    srcs += [(t, "", True) for t in diff.IMPORT_CASES]
    errl = {t for t, _ in diff.errline_templates(600)}
    srcs += [(t, "", False) for t in sorted(errl)]
    for src, opts, with_files in srcs:
        parts = {"template": src, "options": opts}
        if with_files:
            for k, v in diff.PROG_FILES.items():
                parts["file " + k] = v
        r = render_case({"name": "bulk", "parts": parts})
        case = {"t": src}
        if with_files:
            case["files"] = True
        if opts:
            case["opts"] = opts
        if "output" in r:
            case["out"] = r["output"]
        else:
            case["type"], case["msg"] = r["error"]["type"], r["error"]["message"]
            if src in errl and r["error"]["template"] == MAIN:
                case["line"] = r["error"]["line"]
        out.append(case)
    path = os.path.join(os.path.dirname(OUT), "golden_bulk.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=0)
        f.write("\n")
    print(f"{len(out)} bulk cases written to {path}")


if __name__ == "__main__":
    main()
