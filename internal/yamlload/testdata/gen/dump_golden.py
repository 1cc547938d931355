#!/usr/bin/env python3
"""Generate testdata/dump_golden.json: PyYAML's output for brine's dumper tests.

Run from internal/yamlload:  python3 testdata/gen/dump_golden.py
Needs PyYAML with libyaml. Cases dump with the C emitter (yaml.CSafeDumper)
unless their options hold "py": true, which selects the pure-Python
emitter (yaml.SafeDumper) that Salt's own dumpers subclass. Each case holds
the input value in a tagged JSON form (decoded by the Go test), the dump
options and the text yaml.dump produced. Plain dicts are sorted when
sort_keys is on; OrderedDicts keep their order, as with Salt's
SafeOrderedDumper, which represents an OrderedDict as a list of pairs.
"""
import base64
import collections
import json
import math

import yaml

assert yaml.__with_libyaml__, "PyYAML without libyaml"


class OrderedSafeDumper(yaml.CSafeDumper):
    """The C safe dumper, plus an ordered-dict representer."""


class PyOrderedSafeDumper(yaml.SafeDumper):
    """The pure-Python safe dumper, plus an ordered-dict representer."""


for _d in (OrderedSafeDumper, PyOrderedSafeDumper):
    _d.add_representer(
        collections.OrderedDict,
        lambda dumper, data: dumper.represent_dict(list(data.items())),
    )


def dump(value, opts):
    kw = dict(opts)
    dumper = PyOrderedSafeDumper if kw.pop("py", False) else OrderedSafeDumper
    kw.setdefault("allow_unicode", True)
    kw.setdefault("default_flow_style", None)
    return yaml.dump(value, Dumper=dumper, **kw)


def enc(v, seen):
    if id(v) in seen and isinstance(v, (list, dict)):
        return {"use": seen[id(v)]}
    if isinstance(v, (list, dict)) and getattr(enc, "shared", None) and id(v) in enc.shared:
        seen[id(v)] = str(len(seen))
        tag = "def"
    else:
        tag = None
    if isinstance(v, collections.OrderedDict):
        out = {"map": [[enc(k, seen), enc(x, seen)] for k, x in v.items()]}
    elif isinstance(v, dict):
        out = {"dict": [[enc(k, seen), enc(x, seen)] for k, x in v.items()]}
    elif isinstance(v, list):
        out = {"seq": [enc(x, seen) for x in v]}
    elif isinstance(v, tuple):
        out = {"tuple": [enc(x, seen) for x in v]}
    elif isinstance(v, bool):
        out = {"bool": v}
    elif isinstance(v, int):
        out = {"int": str(v)}
    elif isinstance(v, float):
        out = {"float": "nan" if math.isnan(v) else repr(v)}
    elif isinstance(v, bytes):
        out = {"bytes": base64.b64encode(v).decode()}
    elif v is None:
        out = None
    else:
        out = {"str": v}
    if tag:
        return {"def": seen[id(v)], "v": out}
    return out


def shared_ids(v):
    """ids of containers reachable twice."""
    count = collections.Counter()

    def walk(x):
        if isinstance(x, (list, dict)):
            count[id(x)] += 1
            if count[id(x)] > 1:
                return
            items = x.items() if isinstance(x, dict) else enumerate(x)
            for k, y in items:
                if isinstance(x, dict):
                    walk(k)
                walk(y)
        elif isinstance(x, tuple):
            for y in x:
                walk(y)

    walk(v)
    return {i for i, n in count.items() if n > 1}


OD = collections.OrderedDict

STRINGS = [
    "a", "yes", "Yes", "no", "on", "OFF", "y", "n", "true", "null", "Null", "~", "",
    "0644", "08", "0o644", "0x1F", "0b1", "1_000", "1:20", "1e3", "1.0e+3", "1.5", ".5", "-.5",
    ".inf", ".nan", "2024-01-15", "2024-01-15 10:30:00", "<<", "=", "-", "--", "---", "...", "a...",
    "- a", "-a", "? a", "?a", ": a", ":a", "a:b", "a: b", "a :b", "a#b", "a #b", "#a", "a,b", "[a]", "{a}",
    "a]", "&a", "*a", "!a", "|a", ">a", "'a", '"a', "%a", "@a", "`a", " a", "a ", "a  b", "a\tb",
    "x\ny", "x\n", "\nx", "x\n\ny", "x \ny", "x\n y", "é", "ünïcödé", "日本語", "😀", "a\u0085b",
    "a\u2028b", "\ufeffa", "\x00", "\x07\x1b", "a\\b", 'a"b', "a'b", "'", "\u00a0", "\ue000", "\ufffe",
    "ab" * 50, ("word " * 30).strip(), "x" * 79 + " y", "y " * 60, ("a " * 45) + " b",
    ("long line with: colon " * 6).strip(), ("say \"hi\" " * 15).strip(),
    ("tab\tand words " * 10).strip(), ("é " * 50).strip(), "http://example.com:8080/path?q=1#frag",
    "C:\\Windows", "key=value", "/etc/passwd", "salt://files/x.conf", "{{ x }}", "{% if %}",
]

NUMBERS = [0, 1, -1, 644, 2 ** 63, -(2 ** 64), 12345678901234567890, 0.0, -0.0, 1.5, 0.1, 1e16, 1e15,
           123456789.123, 1e-5, 0.0001, 1e100, -2.5e-10, float("inf"), float("-inf"), float("nan"), True, False, None]

CASES = []


def add(value, **opts):
    CASES.append((value, opts))


for s in STRINGS:
    add(s)
for n in NUMBERS:
    add(n)
add(b"hi")
add(b"\x00\x01binary" * 20)
add(OD([("data", b"abc")]), default_flow_style=False)

nested = OD([
    ("pkgs", ["vim", "git", "curl"]),
    ("service", OD([("name", "nginx"), ("enable", True), ("reload", False), ("watch", [OD([("file", "/etc/nginx.conf")])])])),
    ("mode", "0644"),
    ("port", 8080),
    ("empty_list", []),
    ("empty_map", OD()),
    ("none", None),
    ("text", "line one\nline two\n"),
    ("flag", "yes"),
    ("nested", [[1, 2], [3, [4, 5]], OD([("a", OD([("b", OD([("c", "deep")]))]))])]),
])
plain = {"zeta": 1, "alpha": [3, 2, 1], "mid": {"y": "yes", "x": None}, "Beta": "on", "_u": ""}

for style in (None, True, False):
    for v in (nested, plain, ["a", "b"], [OD([("a", 1)]), OD([("b", [1, 2])])], OD([("k", [])]), [[]], [OD()], "scalar", 5):
        add(v, default_flow_style=style)
    add(plain, default_flow_style=style, sort_keys=False)

for indent in (1, 2, 3, 4, 8, 10):
    add(nested, default_flow_style=False, indent=indent)
    add(nested, default_flow_style=True, indent=indent)
for width in (20, 40, 4, -1, 200):
    add(OD([("k", ("word " * 40).strip()), ("q", ("x: y " * 30).strip()), ("d", ("é\u0001 " * 30).strip()), ("list", ["item%d" % i for i in range(30)])]),
        width=width)
    add(OD([("k", ("word " * 40).strip())]), width=width, default_flow_style=False)
for allow in (True, False):
    add(OD([("u", "ünïcödé"), ("e", "😀"), ("j", "日本"), ("k", OD([("é", "x")]))]), allow_unicode=allow)
    add(["é" * 50 + " " + "ü" * 40], allow_unicode=allow)
add(OD([("a", 1)]), explicit_start=True)
add(OD([("a", 1)]), explicit_end=True)
add(OD([("a", 1)]), explicit_start=True, explicit_end=True, default_flow_style=False)
add("text", explicit_start=True)
add([1, 2], explicit_start=True, default_flow_style=False)
add(OD([("a", "x\ny"), ("b", [1])]), line_break="\r\n", default_flow_style=False)
add(OD([("a", "x\ny")]), line_break="\r")

# keys of every kind
add(OD([(1, "int"), (2.5, "float"), (True, "bool"), (None, "none"), ("s", "str"), ((1, 2), "tuple")]))
add({1: "a", "b": 2})
add({2: "b", 1: "a", 1.5: "c", False: "f"})
add({"b": 1, "a": 2, "é": 3, "B": 4, "a b": 5, "": 6})
add({None: 1})
add(OD([("x" * 130, 1), ("y" * 128, 2), ("multi\nline", 3), ("", 4), ("yes", 5), ("- a", 6)]), default_flow_style=False)
add(OD([("x" * 130, 1), ("multi\nline", 3)]), default_flow_style=True)
add(OD([((1, 2), "t")]), default_flow_style=False)
add({(): 1})
add([(), (1,), ("a", ["b"])])

# aliases: the same container twice
shared = [1, 2]
add(OD([("a", shared), ("b", shared)]), default_flow_style=False)
add(OD([("a", shared), ("b", shared)]))
smap = OD([("k", "v")])
add([smap, smap, [smap]], default_flow_style=False)
add(OD([("x", smap), ("y", OD([("z", smap)])), ("w", shared), ("v", shared)]), default_flow_style=False)

# a typical state return
ret = OD()
for i in range(3):
    ret["file_|-f%d_|-/tmp/f%d_|-managed" % (i, i)] = OD([
        ("name", "/tmp/f%d" % i), ("changes", OD([("diff", "New file"), ("mode", "0644")]) if i else OD()),
        ("result", True if i != 2 else None), ("comment", "File /tmp/f%d updated" % i),
        ("__sls__", "files"), ("__run_num__", i), ("start_time", "10:00:00.%06d" % i), ("duration", 1.234 * i),
        ("__id__", "f%d" % i),
    ])
add(OD([("local", ret)]), default_flow_style=False)
add(OD([("local", ret)]), default_flow_style=False, indent=4)
add(OD([("local", ret)]), default_flow_style=True, indent=0)

# random strings in every context, seeded so the file is stable
import random

rng = random.Random(3006)
ALPHABET = "aaaaabbbcde    \n:#-'\"é,[]{}?!&*|>%@`.\t~0189xyz\u2028\u00a0😀"


def rand_str():
    n = rng.choice([1, 2, 3, 5, 10, 40, 85, 120, 200])
    return "".join(rng.choice(ALPHABET) for _ in range(n))


def rand_value(depth=0):
    r = rng.random()
    if depth > 2 or r < 0.4:
        return rng.choice([rand_str, rand_str, rand_str, lambda: rng.randint(-1000, 10 ** 6), lambda: None, lambda: True, lambda: 0.5])()
    if r < 0.7:
        return [rand_value(depth + 1) for _ in range(rng.randint(0, 4))]
    return OD((rand_str() if rng.random() < 0.8 else rng.randint(0, 99), rand_value(depth + 1)) for _ in range(rng.randint(0, 4)))


for _ in range(400):
    opts = {}
    if rng.random() < 0.5:
        opts["width"] = rng.choice([10, 20, 30, 60, 100])
    if rng.random() < 0.5:
        opts["default_flow_style"] = rng.choice([True, False])
    if rng.random() < 0.3:
        opts["indent"] = rng.choice([3, 4])
    if rng.random() < 0.2:
        opts["allow_unicode"] = False
    add(rand_value(), **opts)


# the pure-Python emitter: long scalars folded in every quoting style
PY_STRINGS = [
    ("word " * 40).strip(), "x" * 79 + " y", "y " * 60, ("a " * 45) + " b", ("a  " * 40).strip(),
    " " + ("lead " * 25), ("trail " * 25), ("two  spaces " * 12).strip(), ("line\n" * 3) + ("w " * 50),
    ("ctl\x01 " * 20).strip(), ("\x01" * 100), ("\x01 " * 60), ("é " * 50).strip(), ("日本語 " * 30).strip(),
    ("😀 x " * 30).strip(), ("tab\tand words " * 10).strip(), ("say \"hi\" " * 15).strip(),
    ("quote 'q' " * 15).strip(), ("x: y " * 30).strip(), ("- a " * 30).strip(), "a" * 100 + " " + "b" * 100,
    ("word " * 30) + "\n" + ("more " * 30), ("é\u0001 " * 30).strip(), ("\u00a0 x " * 30).strip(),
    ("a\u2028 b " * 20).strip(), (" \x01" * 50), ("ab\x01" + " " * 3) * 20, "\ufeff" + ("w " * 50),
    ("w " * 38) + "\x01" + (" w" * 20), ("w " * 39) + "  " + ("w " * 20), "x\n" + ("  y " * 30),
]
for s in PY_STRINGS:
    for unicode in (True, False):
        for indent in (2, 4):
            add(OD([("key", s), ("list", [s, OD([("n", s)])])]), py=True, allow_unicode=unicode, indent=indent,
                default_flow_style=False)
            add(OD([("key", s), ("list", [s])]), py=True, allow_unicode=unicode, indent=indent, default_flow_style=True)
    add(s, py=True)
    add([s], py=True, width=30)
for s in STRINGS:
    add(OD([("k", s)]), py=True, default_flow_style=False)
add(OD([("local", ret)]), py=True, default_flow_style=False)
add(OD([("local", ret)]), py=True, default_flow_style=False, indent=4)
rng = random.Random(3007)
for _ in range(200):
    opts = {"py": True}
    if rng.random() < 0.5:
        opts["width"] = rng.choice([10, 20, 30, 60, 100])
    if rng.random() < 0.5:
        opts["default_flow_style"] = rng.choice([True, False])
    if rng.random() < 0.3:
        opts["indent"] = rng.choice([3, 4])
    if rng.random() < 0.2:
        opts["allow_unicode"] = False
    add(rand_value(), **opts)
# long strings dense in spaces, breaks and escapes, to stress folding
FOLD_ALPHABET = "abc  \n\x01\t'\"é😀\u2028\x85\xa0"
for _ in range(300):
    text = "".join(rng.choice(FOLD_ALPHABET) for _ in range(rng.choice([30, 90, 160, 250])))
    opts = {"py": True, "width": rng.choice([10, 20, 40, 80]), "indent": rng.choice([2, 4]),
            "allow_unicode": rng.random() < 0.6, "default_flow_style": rng.choice([True, False, None])}
    add(rng.choice([text, [text], OD([("k", text)]), OD([("k", [text, OD([("j", text)])])])]), **opts)
# printable text only: plain and single-quoted folding
PLAIN_ALPHABET = "abcdé   \n'#:-"
for _ in range(200):
    text = "".join(rng.choice(PLAIN_ALPHABET) for _ in range(rng.choice([30, 90, 160, 250])))
    if rng.random() < 0.5:
        text = rng.choice(["'", " ", "- ", "#"]) + text
    opts = {"py": True, "width": rng.choice([10, 20, 40, 80]), "indent": rng.choice([2, 4]),
            "allow_unicode": rng.random() < 0.6, "default_flow_style": rng.choice([True, False, None])}
    add(rng.choice([text, [text], OD([("k", text)]), OD([("k", [text, OD([("j", text)])])])]), **opts)


def main():
    out = []
    for value, opts in CASES:
        enc.shared = shared_ids(value)
        text = dump(value, opts)
        out.append({"value": enc(value, {}), "opts": opts, "out": text})
    with open("testdata/dump_golden.json", "w") as f:
        # one case a line: small, and diffs stay readable
        f.write("[\n" + ",\n".join(json.dumps(c, ensure_ascii=False) for c in out) + "\n]\n")
    print(len(out), "cases")


if __name__ == "__main__":
    main()
