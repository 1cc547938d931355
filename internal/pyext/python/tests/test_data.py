import datetime
import unittest
from collections import OrderedDict

import salt.utils.data as sd
from salt.exceptions import SaltException


class DecodeEncodeTests(unittest.TestCase):
    def test_decode_nested(self):
        data = {b"k": [b"a", ("t", b"u"), {b"n": b"v"}], "i": 1, b"d": datetime.datetime(2020, 1, 2, 3, 4, 5)}
        self.assertEqual(
            sd.decode(data),
            {"k": ["a", ["t", "u"], {"n": "v"}], "i": 1, "d": "2020-01-02T03:04:05"},
        )
        self.assertEqual(sd.decode(("a", b"b"), preserve_tuples=True), ("a", "b"))
        self.assertEqual(sd.decode(("a", b"b")), ["a", "b"])
        self.assertEqual(sd.decode(b"x"), "x")
        self.assertEqual(sd.decode(5), 5)
        self.assertIsNone(sd.decode(None))

    def test_decode_dict_class_and_keep(self):
        od = OrderedDict([(b"b", 1), (b"a", 2)])
        out = sd.decode(od, preserve_dict_class=True)
        # As in Salt 3006: the circular-reference pass rebuilds mappings as
        # dicts before decoding, so the class is lost but the order is kept.
        self.assertEqual(list(out), ["b", "a"])
        self.assertIs(type(sd.decode(od)), dict)
        with self.assertRaises(UnicodeDecodeError):
            sd.decode([b"\xff"], encoding="utf-8")
        self.assertEqual(sd.decode([b"\xff"], encoding="utf-8", keep=True), [b"\xff"])
        self.assertEqual(sd.decode_list([b"a", [b"b"]]), ["a", ["b"]])
        self.assertEqual(sd.decode_dict({b"a": (b"b",)}), {"a": ["b"]})
        self.assertEqual(sd.decode_tuple((b"a", (b"b",))), ("a", ("b",)))
        self.assertEqual(sd.decode(["e\u0301"], normalize=True), ["\u00e9"])

    def test_decode_circular(self):
        a = [1]
        a.append(a)
        self.assertEqual(sd.decode(a), [1, None])

    def test_encode(self):
        self.assertEqual(sd.encode({"k": ["v", ("t",)], "n": 1}), {b"k": [b"v", [b"t"]], b"n": 1})
        self.assertEqual(sd.encode(("a",), preserve_tuples=True), (b"a",))
        self.assertEqual(sd.encode("é"), "é".encode("utf-8"))
        with self.assertRaises(UnicodeEncodeError):
            sd.encode(["é"], encoding="ascii")
        self.assertEqual(sd.encode(["é"], encoding="ascii", keep=True), ["é"])
        self.assertEqual(sd.encode_list(["a"]), [b"a"])
        self.assertEqual(sd.encode_dict(OrderedDict(a="b"), preserve_dict_class=True), OrderedDict([(b"a", b"b")]))
        self.assertEqual(sd.encode_tuple(("a",)), (b"a",))


class TraverseTests(unittest.TestCase):
    data = {"foo": {"bar": {"baz": 1}, "lst": ["x", {"k": "v"}], 1: "int key"}, "n": None}

    def test_traverse_dict(self):
        self.assertEqual(sd.traverse_dict(self.data, "foo:bar:baz"), 1)
        self.assertEqual(sd.traverse_dict(self.data, "foo:nope", "dflt"), "dflt")
        self.assertEqual(sd.traverse_dict(self.data, "foo/bar/baz", delimiter="/"), 1)
        self.assertIsNone(sd.traverse_dict(self.data, "foo:bar:baz:deeper"))
        self.assertEqual(sd.traverse_dict(self.data, "foo:lst", []), ["x", {"k": "v"}])

    def test_traverse_dict_and_list(self):
        self.assertEqual(sd.traverse_dict_and_list(self.data, "foo:lst:0"), "x")
        self.assertEqual(sd.traverse_dict_and_list(self.data, "foo:lst:k"), "v")
        self.assertEqual(sd.traverse_dict_and_list(self.data, "foo:lst:5", "d"), "d")
        self.assertEqual(sd.traverse_dict_and_list(self.data, "foo:lst:zz", "d"), "d")
        # '1' is retried as the int key 1 (YAML-loaded)
        self.assertEqual(sd.traverse_dict_and_list(self.data, "foo:1"), "int key")
        self.assertEqual(sd.traverse_dict_and_list(self.data, ["foo", "bar", "baz"]), 1)
        self.assertEqual(sd.traverse_dict_and_list(self.data, "n:x", "d"), "d")
        self.assertEqual(sd.traverse_dict_and_list(self.data, "foo:missing", "d"), "d")

    def test_get_value(self):
        obj = {"a": {"b": [{"c": 1}, {"c": 2}]}}
        self.assertEqual(sd.get_value(obj, "a:b"), [{"value": [{"c": 1}, {"c": 2}]}])
        self.assertEqual(sd.get_value(obj, "a:x", "d"), [{"value": "d"}])
        self.assertEqual(sd.get_value(obj, "a:b:{id}:c"), [{"value": 1, "id": 0}, {"value": 2, "id": 1}])

    def test_filter_by(self):
        grains = {"os_family": "Debian", "roles": ["web", "db"]}
        lookup = {"Debian": {"pkg": "apache2"}, "RedHat": {"pkg": "httpd"}, "default": {"pkg": "x"}}
        self.assertEqual(sd.filter_by(lookup, "os_family", grains), {"pkg": "apache2"})
        self.assertEqual(sd.filter_by(lookup, "missing", grains), {"pkg": "x"})
        self.assertEqual(sd.filter_by({"d*": 1}, "roles", grains), 1)
        self.assertEqual(
            sd.filter_by({"Debian": {"a": 1}, "base": {"a": 0, "b": 2}}, "os_family", grains, base="base"),
            {"a": 1, "b": 2},
        )
        self.assertEqual(sd.filter_by(lookup, "os_family", grains, merge={"pkg": "m", "z": 1}), {"pkg": "m", "z": 1})
        with self.assertRaises(SaltException):
            sd.filter_by(lookup, "os_family", grains, merge=[1])


class PredicateTests(unittest.TestCase):
    def test_is_true(self):
        for val in (True, 1, "1", 2.5, "2.5", "true", "True", "TRUE", [1], {"a": 1}):
            self.assertTrue(sd.is_true(val), val)
        for val in (False, 0, "0", -1, "-1", "yes", "false", "", None, [], {}, "0.0"):
            self.assertFalse(sd.is_true(val), val)
        self.assertFalse(sd.is_true())

    def test_misc_predicates(self):
        self.assertTrue(sd.exactly_one([0, None, 3]))
        self.assertFalse(sd.exactly_one([1, 2]))
        self.assertTrue(sd.exactly_n([1, 2, 0], 2))
        self.assertTrue(sd.is_list([]))
        self.assertFalse(sd.is_list(()))
        self.assertTrue(sd.is_iter([1]))
        self.assertFalse(sd.is_iter("str"))
        self.assertFalse(sd.is_iter(5))
        self.assertTrue(sd.is_iter("str", ignore=None))
        self.assertTrue(sd.is_dictlist([{"a": 1}, {"b": 2}]))
        self.assertFalse(sd.is_dictlist([{"a": 1, "b": 2}]))
        self.assertFalse(sd.is_dictlist(["a"]))
        self.assertFalse(sd.is_dictlist({}))
        self.assertTrue(sd.substr_in_list("ell", ["hello", "x"]))
        self.assertEqual(sd.sorted_ignorecase(["b", "A", "a", "B"]), ["A", "a", "b", "B"])


class MiscTests(unittest.TestCase):
    def test_compare(self):
        self.assertEqual(
            sd.compare_dicts({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 5, "d": 4}),
            {"b": {"old": 2, "new": 5}, "c": {"new": "", "old": 3}, "d": {"old": "", "new": 4}},
        )
        self.assertEqual(sd.compare_lists([1, 2], [2, 3]), {"new": [3], "old": [1]})
        self.assertEqual(sd.compare_lists([1], [1]), {})

    def test_repack_dictlist(self):
        self.assertEqual(sd.repack_dictlist([{"a": 1}, {"b": 2}, "c"]), {"a": 1, "b": 2, "c": None})
        self.assertEqual(sd.repack_dictlist("- a: 1\n- b: 2\n"), {"a": 1, "b": 2})
        self.assertEqual(sd.repack_dictlist([{"a": 1, "b": 2}]), {})
        self.assertEqual(sd.repack_dictlist({"a": 1}), {})
        self.assertEqual(sd.repack_dictlist([[1]]), {})
        nested = [{"a": [{"b": 1}]}]
        self.assertEqual(sd.repack_dictlist(nested), {"a": [{"b": 1}]})
        self.assertEqual(sd.repack_dictlist(nested, recurse=True), {"a": {"b": 1}})
        self.assertEqual(sd.repack_dictlist(nested, strict=True), {})
        self.assertEqual(sd.repack_dictlist([{"A": 1}], key_cb=str.lower, val_cb=lambda k, v: v + 1), {"a": 2})

    def test_case(self):
        self.assertEqual(sd.to_lowercase({"A": ["B", ("C",)]}), {"a": ["b", ("c",)]})
        self.assertEqual(sd.to_uppercase(["a", 1]), ["A", 1])
        cid = sd.CaseInsensitiveDict({"Foo": 1})
        self.assertEqual(cid["FOO"], 1)
        self.assertIn("foo", cid)
        self.assertEqual(list(cid), ["Foo"])
        self.assertEqual(cid, {"fOO": 1})
        self.assertNotEqual(cid, 5)
        del cid["foo"]
        self.assertEqual(len(cid), 0)

    def test_filters(self):
        self.assertEqual(
            sd.filter_falsey({"a": 0, "b": False, "c": None, "d": [], "e": "x", "f": {"g": None}}),
            {"b": False, "e": "x", "f": {"g": None}},
        )
        self.assertEqual(sd.filter_falsey({"f": {"g": None}, "h": {"i": 1}}, recurse_depth=1), {"h": {"i": 1}})
        self.assertEqual(sd.filter_falsey([0, "", 1, False], ignore_types=[int]), [0, 1, False])
        self.assertEqual(sd.stringify([1, "a", None]), ["1", "a", "None"])
        self.assertEqual(sd.simple_types_filter({"a": object, 1: [datetime.date(2020, 1, 1)]})[1],
                         ["datetime.date(2020, 1, 1)"])
        self.assertEqual(sd.flatten([1, [2, [3, None]], "null"]), [1, 2, 3])
        self.assertEqual(sd.flatten([1, [2, [3]]], levels=1), [1, 2, [3]])
        self.assertEqual(sd.flatten([None, [None]], preserve_nulls=True), [None, None])
        self.assertEqual(
            sd.mysql_to_dict(["+--+", "| id | name |", "+--+", "| 1 | foo |"], "id"),
            {1: {"id": 1, "name": "foo"}},
        )

    def test_hash_sample(self):
        import hashlib

        self.assertEqual(sd.hash("abc", "md5"), hashlib.md5(b"abc").hexdigest())
        self.assertEqual(sd.hash("abc"), hashlib.sha512(b"abc").hexdigest())
        with self.assertRaises(SaltException):
            sd.hash("abc", "nope")
        self.assertEqual(sd.sample([1, 2, 3, 4], 2, seed="s"), sd.sample([1, 2, 3, 4], 2, seed="s"))
        self.assertEqual(sorted(sd.shuffle([1, 2, 3], seed="1")), [1, 2, 3])
        # Salt hashes the seed with hashlib: a non-string seed is a TypeError
        with self.assertRaises(TypeError):
            sd.shuffle([1, 2, 3], seed=1)


if __name__ == "__main__":
    unittest.main()
