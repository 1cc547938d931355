import io
import math
import unittest
from collections import OrderedDict

import salt.utils.yaml as sy

try:  # cross-checks against PyYAML run only where it is installed
    import yaml as pyyaml
except ImportError:  # pragma: no cover
    pyyaml = None


DOCS = [
    "a: 1",
    "a: 010\nb: -010\nc: 0x1f\nd: 0b11\ne: 1_000\nf: 1:30",
    "x: 1.5\ny: 1e3\nz: 1.0e+3\nw: .inf\nv: -.Inf\nu: .5",
    "a: yes\nb: No\nc: on\nd: OFF\ne: ~\nf: null\ng:\nh: 2020-01-01\ni: 2001-12-14t21:59:43.10-05:00",
    "- a\n- b\n-\n- - c\n  - d\n- e: 1\n  f: 2\n- [1, 2]\n- {x: y}",
    "a:\n- 1\n- 2\nb:\n  c: 3\n  d:\n    - 4\n# comment\ne: 'q''s' # c\nf: \"esc\\t\\n\\x41\\u00e9\"\n",
    "text: |\n  line1\n   line2\n\n  line3\nfolded: >\n  a\n  b\n\n  c\n   d\n  e\nkeep: |+\n  k\n\nstrip: >-\n  s\n  t\nlast: 1\n",
    "base: &b\n  x: 1\n  y: 2\nderived:\n  <<: *b\n  y: 3\nlist: &l [1, 2]\nref: *l\n",
    "plain: this is\n  continued\n  over lines\nq: 'single\n  folded'\ndq: \"a\\\n  b\"\n",
    "---\n{a: [1, 2, {b: c}], 'd e': \"f\", g: }\n...\n",
    "key with spaces: 'value with: colon'\nurl: http://example.com:8080/x\nhash: a#b\nc: d #comment\n",
    "- !!str 123\n- !!int '7'\n- !!float '1'\n- ! 12\n",
    "[a, b, [c, d], {e: f}, g h]",
    "- a: 1\n  b:\n  - x\n  - y\n- c: |\n    t\n",
    "top:\n  - name: foo\n    val: 1\n  - name: bar\n",
    "",
    "# only comment\n",
    "a: [1,\n  2,\n  3]\nb: {x: 1,\n  y: 2}\n",
    "a: 'it''s'\nb: ''\nc: \"\"\nd: '#'\n",
    "? complex\n: key\n? 'multi\n\n  line'\n: - 1\n? bare\n",
    "{? a : 1, b: 2}",
    "pkgs:\n  - vim\n  - git: 1.2\nservice:\n  enable: True\n  name: 'sshd'\n",
    "a: |2\n    indented\n  b\n",
    "a: >\n  folded\n  text\n\n\nb: 2",
    "k: v\n...\n",
    "a:\n  - b\n  -\n    c: d\n",
    "{}", "[]", "null", "42", "'str'",
]

BAD = [
    "a: b: c",
    "key: value with: colon",
    "a: foo\n  b: 1",
    "a: 1\na: 2",
    "a: [1, 2",
    "a: 'unterminated",
    "a: *nope",
    "- a\nb: 1",
    "a: 1\n---\nb: 2",
    "a: !!python/object:os.system x",
    "a: !custom x",
    "%YAML 1.1\n---\na: 1",
    "x: &a 1\ny:\n  <<: [*a]",
]


class SaltLoaderMixin:
    @staticmethod
    def pyyaml_salt_load(text):
        class Loader(pyyaml.SafeLoader):
            pass

        def construct_scalar(self, node):
            if node.tag == "tag:yaml.org,2002:int":
                if node.value != "0" and node.value.startswith("0") and not node.value.startswith(("0b", "0x")):
                    node.value = node.value.lstrip("0") or "0"
            return pyyaml.SafeLoader.construct_scalar(self, node)

        Loader.construct_scalar = construct_scalar
        Loader.add_constructor("tag:yaml.org,2002:timestamp", Loader.construct_scalar)
        return pyyaml.load(text, Loader=Loader)


class LoadTests(unittest.TestCase, SaltLoaderMixin):
    def test_scalars(self):
        data = sy.safe_load(DOCS[1])
        self.assertEqual(data, {"a": 10, "b": -8, "c": 31, "d": 3, "e": 1000, "f": 90})
        data = sy.safe_load(DOCS[2])
        self.assertEqual(data["x"], 1.5)
        self.assertEqual(data["y"], "1e3")
        self.assertEqual(data["z"], 1000.0)
        self.assertEqual(data["w"], math.inf)
        self.assertEqual(data["v"], -math.inf)
        self.assertTrue(math.isnan(sy.safe_load("n: .nan")["n"]))
        data = sy.safe_load(DOCS[3])
        self.assertEqual([data[k] for k in "abcdefg"], [True, False, True, False, None, None, None])
        self.assertEqual(data["h"], "2020-01-01")  # timestamps stay strings (Salt)
        self.assertEqual(sy.safe_load("a: yEs")["a"], "yEs")

    def test_structures(self):
        self.assertEqual(
            sy.safe_load(DOCS[4]),
            ["a", "b", None, ["c", "d"], {"e": 1, "f": 2}, [1, 2], {"x": "y"}],
        )
        data = sy.safe_load(DOCS[5])
        self.assertEqual(data["a"], [1, 2])
        self.assertEqual(data["b"], {"c": 3, "d": [4]})
        self.assertEqual(data["e"], "q's")
        self.assertEqual(data["f"], "esc\t\nA\u00e9")

    def test_block_scalars(self):
        data = sy.safe_load(DOCS[6])
        self.assertEqual(data["text"], "line1\n line2\n\nline3\n")
        self.assertEqual(data["folded"], "a b\nc\n d\ne\n")
        self.assertEqual(data["keep"], "k\n\n")
        self.assertEqual(data["strip"], "s t")
        self.assertEqual(sy.safe_load("a: |2\n    indented\n  b\n"), {"a": "  indented\nb\n"})

    def test_anchors_merge(self):
        data = sy.safe_load(DOCS[7])
        self.assertEqual(data["derived"], {"x": 1, "y": 3})
        self.assertEqual(data["ref"], [1, 2])

    def test_folding(self):
        data = sy.safe_load(DOCS[8])
        self.assertEqual(data, {"plain": "this is continued over lines", "q": "single folded", "dq": "ab"})

    def test_streams(self):
        self.assertEqual(sy.safe_load(io.StringIO("a: 1")), {"a": 1})
        self.assertEqual(sy.safe_load(b"a: 1"), {"a": 1})
        self.assertEqual(sy.load("a: 1"), {"a": 1})
        self.assertIsNone(sy.safe_load(""))
        self.assertEqual(sy.safe_load("a: 1\r\nb: 2\r\n"), {"a": 1, "b": 2})

    def test_errors(self):
        for text in BAD:
            with self.assertRaises(sy.YAMLError, msg=text):
                sy.safe_load(text)
        with self.assertRaisesRegex(sy.ConstructorError, "found conflicting ID 'a'"):
            sy.safe_load("a: 1\na: 2")
        with self.assertRaisesRegex(sy.YAMLError, "brine's YAML loader does not support"):
            sy.safe_load("a: !!python/name:os.system")
        self.assertTrue(issubclass(sy.parser.ParserError, sy.YAMLError))
        self.assertTrue(issubclass(sy.scanner.ScannerError, sy.YAMLError))
        self.assertTrue(issubclass(sy.constructor.ConstructorError, sy.YAMLError))

    @unittest.skipIf(pyyaml is None, "PyYAML not installed")
    def test_same_as_pyyaml_with_salt_loader(self):
        for text in DOCS:
            with self.subTest(text=text):
                self.assertEqual(sy.safe_load(text), self.pyyaml_salt_load(text))
        for text in BAD:
            if text.startswith("%YAML"):
                continue  # valid YAML that brine refuses on purpose
            if "!" in text or text == "a: 1\na: 2":
                continue  # refused on purpose / Salt's duplicate-key check
            with self.subTest(text=text):
                with self.assertRaises(pyyaml.YAMLError):
                    self.pyyaml_salt_load(text)


DUMP_DATA = [
    {"a": 1},
    {"a": [1, 2], "b": {"c": 1}},
    {"b": [1, {"x": "y"}], "a": "yes"},
    [1, "two", None, True, 1.5, 1e20, -0.0],
    ["010", "1.0", "null", "", " lead", "trail ", "a: b", "a #b", "#x", "- x", "-x", "x-",
     "---", "é", "it's", "*x", "&y", "!z", "%p", "@q", "`r", "a,b", "[x]", "{y}", "?", ":",
     "a:b", "="],
    "foo", 1, None, "", [], {}, {"e": [], "f": {}},
    [[1, 2], [3, [4]]],
    [{"a": 1, "b": [1, 2]}, {"c": {"d": 1}}],
    {"k": [{"n": "a", "v": [1, {"z": 1}]}]},
    {1: "int key", None: "nk", True: "bk"},
]


class DumpTests(unittest.TestCase):
    def test_examples(self):
        self.assertEqual(sy.safe_dump({"a": 1}), "{a: 1}\n")
        self.assertEqual(sy.safe_dump({"b": [1, 2], "a": {"c": "d"}}), "a: {c: d}\nb: [1, 2]\n")
        self.assertEqual(
            sy.safe_dump({"b": [1, {"x": [1, 2]}], "a": {"c": {"d": 1}}}),
            "a:\n  c: {d: 1}\nb:\n- 1\n- x: [1, 2]\n",
        )
        self.assertEqual(sy.safe_dump({"a": [1]}, default_flow_style=False), "a:\n- 1\n")
        self.assertEqual(sy.safe_dump({"a": {"b": 1}}, default_flow_style=True), "{a: {b: 1}}\n")
        self.assertEqual(sy.safe_dump("foo"), "foo\n...\n")
        self.assertEqual(sy.safe_dump(["1", "yes", "x"]), "['1', 'yes', x]\n")
        self.assertEqual(sy.safe_dump({"m": "a\nb"}), '{m: "a\\nb"}\n')
        self.assertEqual(sy.safe_dump({"k": 1}, explicit_start=True), "--- {k: 1}\n")
        self.assertEqual(sy.safe_dump(OrderedDict([("z", 1), ("a", [{"b": 1}])])), "z: 1\na:\n- {b: 1}\n")
        self.assertEqual(sy.safe_dump({"b": 1, "a": 2}, sort_keys=False), "{b: 1, a: 2}\n")
        self.assertEqual(sy.safe_dump({"t": (1, 2)}), "{t: NULL}\n")  # Salt's undefined representer
        self.assertEqual(sy.safe_dump({"u": "é"}, allow_unicode=False), '{u: "\\xE9"}\n')
        self.assertEqual(sy.safe_dump({"a": 1}, encoding="utf-8"), b"{a: 1}\n")
        buf = io.StringIO()
        self.assertIsNone(sy.safe_dump([1], buf))
        self.assertEqual(buf.getvalue(), "[1]\n")
        self.assertEqual(sy.dump({"a": 1}), "{a: 1}\n")
        nested = {"a": [1, {"b": [1, 2]}], "c": {"d": [{"e": 1}]}}
        self.assertEqual(sy.safe_dump(nested, Dumper=sy.IndentedSafeOrderedDumper),
                         "a:\n  - 1\n  - b: [1, 2]\nc:\n  d:\n    - {e: 1}\n")
        self.assertEqual(sy.safe_dump(nested, Dumper=sy.get_dumper("SafeOrderedDumper")),
                         "a:\n- 1\n- b: [1, 2]\nc:\n  d:\n  - {e: 1}\n")
        self.assertIsNone(sy.get_dumper("Nope"))

    def test_round_trip(self):
        for data in DUMP_DATA:
            with self.subTest(data=data):
                self.assertEqual(sy.safe_load(sy.safe_dump(data)), data)
                self.assertEqual(sy.safe_load(sy.safe_dump(data, default_flow_style=False)), data)
                self.assertEqual(sy.safe_load(sy.safe_dump(data, default_flow_style=True)), data)

    @unittest.skipIf(pyyaml is None, "PyYAML not installed")
    def test_same_as_pyyaml(self):
        for data in DUMP_DATA:
            with self.subTest(data=data):
                expected = pyyaml.safe_dump(data, default_flow_style=None, allow_unicode=True, width=10000)
                self.assertEqual(sy.safe_dump(data), expected)
        nested = {"b": [1, {"x": [1, 2]}], "a": {"c": "d"}}
        for kw in ({"default_flow_style": False}, {"default_flow_style": True}, {"indent": 4},
                   {"explicit_start": True}, {"sort_keys": False}):
            with self.subTest(kw=kw):
                opts = dict({"default_flow_style": None, "allow_unicode": True}, **kw)
                self.assertEqual(sy.safe_dump(nested, **kw), pyyaml.safe_dump(nested, **opts))


if __name__ == "__main__":
    unittest.main()


class RandomRoundTripTests(unittest.TestCase):
    """Random nested data: brine's dump loads back the same in brine and in
    PyYAML, and PyYAML's dumps (all three flow styles) load the same in
    brine as in PyYAML."""

    WORDS = ["a", "b c", "yes", "010", "1.5", "", " x", "x:", "- y", "#z", "q'q", 'd"d', "é",
             "a\nb", "tab\t", "null", "~", "-", "[", "}", "k: v", "1e3", "0x10", "@", "%",
             "line\n\nbreaks", "trailing\n", "  lead", "*a", "&b", "!c", "a,b", "?x", ":x",
             "::", "2020-01-01", "=", "<<"]

    def gen(self, rnd, depth=0):
        r = rnd.random()
        if depth > 3 or r < 0.4:
            return rnd.choice([rnd.choice(self.WORDS), rnd.randint(-100, 100),
                               rnd.random() * 100, None, True, False])
        if r < 0.7:
            return [self.gen(rnd, depth + 1) for _ in range(rnd.randint(0, 4))]
        return {
            (rnd.choice(self.WORDS[:30]) if rnd.random() < 0.8 else rnd.randint(0, 9)): self.gen(rnd, depth + 1)
            for _ in range(rnd.randint(0, 4))
        }

    def test_random_round_trip(self):
        import random

        rnd = random.Random(7)
        for _ in range(400):
            data = self.gen(rnd)
            for style in (None, False, True):
                text = sy.safe_dump(data, default_flow_style=style)
                self.assertEqual(sy.safe_load(text), data, text)
                if pyyaml is not None:
                    self.assertEqual(pyyaml.safe_load(text), data, text)
                    ptext = pyyaml.safe_dump(data, default_flow_style=style, allow_unicode=True)
                    self.assertEqual(sy.safe_load(ptext), pyyaml.safe_load(ptext), ptext)
