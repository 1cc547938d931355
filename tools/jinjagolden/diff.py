#!/usr/bin/env python3
"""Quick differential check: render generated one-line templates with
Python Jinja2 (Salt's configuration) and with brine's engine (through
TestAdhoc), and print the templates whose results differ.

Usage: python3 tools/jinjagolden/diff.py [FILE_OF_TEMPLATES]
"""

import itertools
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

VALUES = ["1", "-2", "2.5", "0", "'ab'", "''", "'Hello World'", "[1, 2]", "[]", "['b', 'a']",
          "{'a': 1}", "{}", "none", "true", "(1, 2)", "'3'", "' x '", "[{'a': 1}, {'a': 2}]", "'a,b'"]
FILTERS = ["abs", "capitalize", "center(7)", "count", "default('d')", "dictsort", "e", "filesizeformat",
           "first", "float", "forceescape", "format(1)", "indent(2)", "int", "items|list", "join(',')",
           "last", "length", "list", "lower", "map('string')|list", "max", "min", "pprint",
           "reject|list", "replace('a', 'b')", "reverse|list", "round", "round(1, 'floor')", "safe",
           "select|list", "slice(2)|list", "sort", "string", "striptags", "sum", "title", "tojson",
           "trim", "truncate(5)", "unique|list", "upper", "urlencode", "wordcount", "wordwrap(3)",
           "xmlattr", "batch(2)|list", "groupby('a')|list|length", "selectattr('a')|list",
           "map(attribute='a')|list", "attr('a')", "sort(reverse=true)", "join"]
TESTS = ["odd", "even", "divisibleby 2", "defined", "undefined", "none", "boolean", "false", "true",
         "integer", "float", "lower", "upper", "string", "mapping", "number", "sequence", "iterable",
         "callable", "sameas 1", "escaped", "in [1, 'ab']", "eq 1", "ne 1", "gt 0", "ge 1", "lt 2",
         "le 0", "filter", "test"]
EXPRS = ["{{ %s[0] }}", "{{ %s[1:] }}", "{{ %s.a }}", "{{ %s['a'] }}", "{{ %s|length > 1 }}",
         "{% for x in %s %}{{ x }},{% endfor %}", "{% if %s %}t{% else %}f{% endif %}",
         "{% set a, b = %s %}{{ a }}{{ b }}", "{{ %s.items() }}", "{{ %s.keys()|list }}",
         "{{ %s.upper() }}", "{{ %s.split() }}", "{{ %s.get('a', 'x') }}", "{{ %s.count(1) }}",
         "{{ %s.index('a') }}", "{{ %s * 2 }}", "{{ -%s }}", "{{ not %s }}", "{{ %s ~ %s }}",
         "{{ '%%s' %% %s }}", "{{ '{}'.format(%s) }}", "{{ %s is %s }}", "{{ range(%s)|list }}",
         "{{ dict(%s) }}", "{{ %s.startswith('a') }}", "{{ %s.replace('a', 'c') }}"]
OPS = ["+", "-", "*", "/", "//", "%", "**", "~", "==", "!=", "<", ">=", "in", "not in", "and", "or"]


def templates():
    for v, f in itertools.product(VALUES, FILTERS):
        yield "{{ %s|%s }}" % (v, f)
    for a, op, b in itertools.product(VALUES[:14], OPS, VALUES[:14]):
        yield "{{ %s %s %s }}" % (a, op, b)
    for v, t in itertools.product(VALUES, TESTS):
        yield "{{ %s is %s }}" % (v, t)
    for v, e in itertools.product(VALUES, EXPRS):
        yield e.replace("%%", "\0").replace("%s", v).replace("\0", "%")


WS_PIECES = ["a", " ", "\n", "  \n", "\t", "{% if true %}", "{% endif %}", "{%- if true %}",
             "{% endif -%}", "{%+ if true %}", "{% if true +%}", "{{ 'v' }}", "{{- 'v' }}", "{{ 'v' -}}",
             "{# c #}", "{#- c #}", "{# c -#}", "{% set x = 1 %}", "{%- set x = 1 -%}", "\n  ",
             "{% raw %} r {% endraw %}", "{%- raw -%} r {%- endraw -%}", "{# c +#}",
             "{% raw %}\n  {% endraw %}", "{% raw %}x\n\t{%- endraw %}", "{%+ raw %}\n {%+ endraw %}",
             "\n\t{% raw %} {% endraw +%}\n"]

WS_FIXED = ['a:\n  {%- for x in [1,2] %}\n  - {{ x }}\n  {%- endfor %}\nb: 1\n', '{% macro m() -%}\n  x\n{%- endmacro %}\n[{{ m() }}]\n', '{% if true %}\n  yes\n{% else %}\n  no\n{% endif %}\n', '  {% for i in [1] %}\n    {{ i }}\n  {% endfor %}\n', '{%- set x = 1 -%}\n\n\nvalue: {{ x }}\n\n', 'x:\n  {% raw %}\n  {{ y }}\n  {% endraw %}\n', '{# comment #}\n{#- c2 -#}\nz\n', "line\r\nwindows\r\n{{ 'v' }}\r\n", 'mac\rline\r', 'a\n\n', '', '\n', "{{ 'x' }}\n\n\n"]


def ws_templates():
    import random

    rnd = random.Random(42)
    opts = ["", "trim_blocks", "lstrip_blocks", "trim_blocks lstrip_blocks"]
    for i in range(3000):
        n = rnd.randint(1, 8)
        parts = [rnd.choice(WS_PIECES) for _ in range(n)]
        src = "".join(parts)
        # keep if/endif balanced
        depth = 0
        ok = True
        for p in parts:
            if "if true" in p:
                depth += 1
            if "endif" in p:
                depth -= 1
                if depth < 0:
                    ok = False
        if not ok:
            continue
        src += "{% endif %}" * depth
        yield src, opts[i % 4]
    for t in WS_FIXED:
        for o in opts:
            yield t, o


PROG_FILES = {
    "base": "B[{% set bv = 'bv' %}{% block one %}one-base{% endblock %}|"
            "{% for i in [1, 2] %}{% block two scoped %}two-base{{ i }}{% endblock %}{% endfor %}|"
            "{% block three %}three-base{{ bv|default('-') }}{% endblock %}]{{ cv|default('-') }}",
    "mid": "{% extends 'base' %}{% block one %}mid({{ super() }}){% endblock %}",
    "inc": "inc:{{ a }}{{ b|default('-') }}{% set a = 'inc-set' %}{{ a }}",
    "lib": "{% set g = 'G' %}{% macro f(x) %}f{{ x }}{% endmacro %}"
           "{% macro h() %}h{{ a|default('?') }}{% endmacro %}",
}


WITH_LINES = False


def errline_templates(count=1500, seed=5):
    """Multi-line programs with one failing expression somewhere."""
    import random

    rnd = random.Random(seed)
    bad = ["nope", "nope.x", "{'a': 1}.b", "1 / 0", "'a' + 1", "[1][5]", "none.x", "x.y.z", "(1).x",
           "'%d' % 'a'", "nope|upper", "[1, 2]|join(nope)", "range(100001)", "''.__class__", "m(nope)"]

    def wrap(e, d):
        c = rnd.randint(0, 12 if d < 2 else 0)
        nl = rnd.choice(["", "\n"])
        if c == 0:
            return "{{ %s%s }}" % (nl, e)
        if c == 1:
            return "{%% set v = [1,%s %s] %%}{{ v }}" % (nl, e)
        if c == 2:
            return "{%% for i in [1, 2] %%}\n{{ i }}\n%s{%% endfor %%}" % wrap(e, d + 1)
        if c == 3:
            return "{%% if true %%}\nok\n%s\n{%% endif %%}" % wrap(e, d + 1)
        if c == 4:
            return "{%% if false %%}\n{%% elif %s %%}x{%% endif %%}" % e
        if c == 5:
            return "{%% macro mm() %%}\n%s\n{%% endmacro %%}\n{{ mm() }}" % wrap(e, d + 1)
        if c == 6:
            return "{%% filter upper %%}\n%s{%% endfilter %%}" % wrap(e, d + 1)
        if c == 7:
            return "{%% set blk %%}\n%s\n{%% endset %%}{{ blk }}" % wrap(e, d + 1)
        if c == 8:
            # ({% with %} values report Jinja's quirky line; not compared)
            return "{%% set w = %s %%}{{ w }}" % e
        if c == 9:
            return "{%% for i in %s %%}{%% endfor %%}" % e
        if c == 10:
            return "{%% do [%s] %%}" % e
        if c == 11:
            return "{{ [1, 2]|map(%s'string')|list }}{{ %s }}" % (nl, e)
        return "{%% call m2() %%}\n%s\n{%% endcall %%}" % wrap(e, d + 1)

    head = "{% set x = {'y': 1} %}{% macro m(p) %}{{ p }}{% endmacro %}{% macro m2() %}[{{ caller() }}]{% endmacro %}\n"
    for _ in range(count):
        lines = ["line %d {{ %d }}" % (i, i) for i in range(rnd.randint(0, 3))]
        lines.insert(rnd.randint(0, len(lines)), wrap(rnd.choice(bad), 0))
        yield head + "\n".join(lines) + "\n", ""


IMPORT_CASES = ["{% import 'lib' as l %}{{ l.f(1) }}{{ l.g }}{{ l.h() }}", "{% from 'lib' import f as ff, g as gg %}{{ ff(2) }}{{ gg }}", "{% from 'lib' import nope %}{{ nope }}", "{% import 'lib' as l with context %}{{ l.h() }}", "{% set a = 'A' %}{% import 'lib' as l with context %}{{ l.h() }}", "{% set a = 'A' %}{% import 'lib' as l %}{{ l.h() }}", "{% set a = 'A' %}{% from 'lib' import h %}{{ h() }}", "{% set a = 'A' %}{% include 'inc' %}|{{ a }}", "{% set a = 'A' %}{% include 'inc' without context %}", "{% include 'inc' ignore missing with context %}", "{% include ['nope', 'inc'] %}", "{% include ('nope', 'inc') %}", "{% include 'nope' ignore missing %}x", "{% include ['nope1', 'nope2'] %}", "{% import 'nope' as x %}", "{% from 'nope' import x %}", "{% extends 'base' %}", "{% extends 'mid' %}{% block three %}T{{ super() }}{% endblock %}", "{% extends 'base' %}{% block one %}{{ self.three() }}{% endblock %}", '{% extends none %}', "{% extends 'base' %}{% extends 'mid' %}", "{% if true %}{% extends 'base' %}{% endif %}", "{% for t in ['base'] %}{% extends t %}{% endfor %}", "{% import 'lib' as l %}{{ l }}", "{% import 'lib' as l %}{{ l.nope }}", "{% import 'lib' as l %}{{ l._x }}", "{% import 'inc' as i %}{{ i }}"]


def lenient_templates():
    """Undefined values in every position, rendered with Jinja's default
    (lenient) Undefined and with StrictUndefined."""
    out = []
    for f in FILTERS:
        out.append("{{ nope|%s }}" % f)
    for t in TESTS:
        out.append("{{ nope is %s }}" % t)
    for e in EXPRS:
        out.append(e.replace("%%", "\0").replace("%s", "nope").replace("\0", "%"))
    for op in OPS:
        out += ["{{ nope %s 1 }}" % op, "{{ 1 %s nope }}" % op, "{{ nope %s nope }}" % op]
    out += ["{{ nope.attr }}", "{{ nope['x'] }}", "{{ nope() }}", "{{ [nope] }}", "{{ {'a': nope} }}",
            "{% for x in nope %}{{ x }}{% else %}empty{% endfor %}", "{{ nope ~ 'x' }}",
            "{% if nope %}y{% else %}n{% endif %}", "{{ nope|string|length }}", "{{ 'x' if nope else 'y' }}",
            "{{ nope or 'fallback' }}", "{{ nope and 'x' }}", "{{ {'a': 1}.b }}", "{{ [1][5] }}"]
    for t in out:
        if "range(nope)" in t or "nope|abs" in t:
            continue
        yield t, "lenient"
        yield t, ""


def ext_templates(count=400, seed=11):
    """Random child templates extending base or mid."""
    import random

    rnd = random.Random(seed)
    bodies = ["x", "{{ super() }}", "[{{ super() }}]", "{{ i|default('noi') }}", "{{ cv|default('nocv') }}",
              "{{ self.one() }}", "{% set q = 1 %}{{ q }}", "{{ bv|default('nobv') }}",
              "{% for j in 'ab' %}{{ j }}{{ super() }}{% endfor %}"]
    for _ in range(count):
        parts = ["pre-" if rnd.random() < 0.3 else "",
                 "{% extends '" + rnd.choice(["base", "mid"]) + "' %}"]
        if rnd.random() < 0.5:
            parts.append("{% set cv = 'child' %}")
        for b in rnd.sample(["one", "two", "three"], rnd.randint(0, 3)):
            parts.append("{%% block %s %%}%s{%% endblock %%}" % (b, rnd.choice(bodies)))
        parts.append("ignored{{ 1 }}")
        yield "".join(parts), ""


def py_render(src, opts=""):
    parts = {"template": src, "options": opts}
    for k, v in PROG_FILES.items():
        parts["file " + k] = v
    r = gen.render_case({"name": "x", "parts": parts})
    if "output" in r:
        return {"out": r["output"]}
    e = {"type": r["error"]["type"], "msg": r["error"]["message"]}
    if WITH_LINES and r["error"]["template"] in ("main.jinja", None, ""):
        e["line"] = r["error"]["line"]
    return e


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "ws":
        srcs = list(ws_templates())
    elif len(sys.argv) > 1 and sys.argv[1] == "prog":
        srcs = list(prog_templates())
    elif len(sys.argv) > 1 and sys.argv[1] == "ext":
        srcs = list(ext_templates())
    elif len(sys.argv) > 1 and sys.argv[1] == "errline":
        global WITH_LINES
        WITH_LINES = True
        srcs = list(errline_templates())
    elif len(sys.argv) > 1:
        opts = sys.argv[2] if len(sys.argv) > 2 else ""
        srcs = [(l, opts) for l in open(sys.argv[1]).read().split("\n") if l.strip()]
    else:
        srcs = [(t, "") for t in templates()]
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump([{"t": t, "opts": o.split()} for t, o in srcs], f)
        path = f.name
    env = dict(os.environ, JINJA_ADHOC=path)
    subprocess.run(["go", "test", "-count=1", "-run", "TestAdhoc", "./internal/jinja/"],
                   cwd=gen.ROOT, env=env, check=True, stdout=sys.stderr)
    got = json.load(open(path + ".out"))
    bad = 0
    for (src, opts), g in zip(srcs, got):
        w = py_render(src, opts)
        g = {k: v for k, v in g.items() if v is not None}
        if not WITH_LINES:
            g.pop("line", None)
        if w.get("type") == "RecursionError" and g.get("type") == "RecursionError":
            continue
        if w != g:
            bad += 1
            print(f"{src!r} [{opts}]\n   py: {w}\n   go: {g}")
    print(f"{bad} of {len(srcs)} differ")



def prog_templates(count=1500, seed=7):
    """Random small programs mixing statements, scoping and macros."""
    import random

    rnd = random.Random(seed)
    names = ["a", "b", "x"]

    def expr(d=0):
        c = rnd.randint(0, 9 if d < 2 else 4)
        if c == 0:
            return str(rnd.randint(0, 5))
        if c == 1:
            return rnd.choice(names)
        if c == 2:
            return "'%s'" % rnd.choice(["s", "t", ""])
        if c == 3:
            return "[%s, %s]" % (expr(d + 1), expr(d + 1))
        if c == 4:
            return "%s|default(%s)" % (rnd.choice(names), expr(d + 1))
        if c == 5:
            return "(%s %s %s)" % (expr(d + 1), rnd.choice(["+", "~", "==", "and", "or", "in"]), expr(d + 1))
        if c == 6:
            return "%s if %s else %s" % (expr(d + 1), expr(d + 1), expr(d + 1))
        if c == 7:
            return "ns.v"
        if c == 8:
            return "m(%s)" % expr(d + 1)
        return "%s|length" % rnd.choice(["'abc'", "[1, 2]", "x"])

    def stmt(d=0):
        c = rnd.randint(0, 16 if d < 2 else 3)
        n = rnd.choice(names)
        if c == 0:
            return "{{ %s }}" % expr()
        if c == 1:
            return "{%% set %s = %s %%}" % (n, expr())
        if c == 2:
            return "{%% set ns.v = %s %%}" % expr()
        if c == 3:
            return "{%% do l.append(%s) %%}" % expr()
        if c == 4:
            return "{%% for %s in %s %%}%s%s{%% endfor %%}" % (
                n, rnd.choice(["[1, 2]", "'ab'", "l|list", "range(2)"]), stmt(d + 1), stmt(d + 1))
        if c == 5:
            return "{%% if %s %%}%s{%% else %%}%s{%% endif %%}" % (expr(), stmt(d + 1), stmt(d + 1))
        if c == 6:
            return "{%% with %s = %s %%}%s{%% endwith %%}" % (n, expr(), stmt(d + 1))
        if c == 7:
            return "{%% set %s %%}%s{%% endset %%}" % (n, stmt(d + 1))
        if c == 8:
            return "{%% macro m(p=1) %%}%s{{ p }}{%% endmacro %%}" % stmt(d + 1)
        if c == 9:
            return "{%% for %s in [1, 2, 3] %%}{%% if %s == 2 %%}{%% %s %%}{%% endif %%}%s{{ loop.index }}{%% endfor %%}" % (
                n, n, rnd.choice(["break", "continue"]), stmt(d + 1))
        if c == 10:
            return "{%% call(v) w(%s) %%}[{{ v }}%s]{%% endcall %%}" % (expr(), stmt(d + 1))
        if c == 11:
            return "{%% filter upper %%}%s{%% endfilter %%}" % stmt(d + 1)
        if c == 12:
            return "{%% include 'inc' %%}"
        if c == 13:
            return "{%% from 'lib' import f, g %%}{{ f(%s) }}{{ g }}" % expr()
        if c == 14:
            return "{%% import 'lib' as lib %%}{{ lib.g }}{{ lib.f(%s) }}" % expr()
        if c == 15:
            return "{%% from 'lib' import h with context %%}{{ h() }}"
        return "{%% set %s, %s = %s, %s %%}" % (n, rnd.choice(names), expr(), expr())

    head = "{% set a = 1 %}{% set b = 'q' %}{% set x = [0] %}{% set l = [] %}{% set ns = namespace(v=0) %}" \
           "{% macro m(p) %}<{{ p }}>{% endmacro %}" \
           "{% macro w(p) %}({% for i in [p, 'z'] %}{{ caller(i) }}{% endfor %}){% endmacro %}"
    for _ in range(count):
        body = "".join(stmt() for _ in range(rnd.randint(1, 5)))
        yield head + body + "|{{ a }}{{ b }}{{ x }}{{ l }}{{ ns.v }}", ""


if __name__ == "__main__":
    main()
