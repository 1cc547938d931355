import copy
import io
import unittest

import salt.utils.dictupdate as du
import salt.utils.json as sj
from salt.exceptions import SaltInvocationError
from salt.utils.odict import DefaultOrderedDict, OrderedDict


class JsonTests(unittest.TestCase):
    def test_dumps_loads(self):
        self.assertEqual(sj.dumps({"a": "é"}), '{"a": "é"}')
        self.assertEqual(sj.dumps({"a": "é"}, ensure_ascii=True), '{"a": "\\u00e9"}')
        self.assertEqual(sj.dumps([1], indent=2), "[\n  1\n]")
        self.assertEqual(sj.loads('{"a": [1, null]}'), {"a": [1, None]})
        self.assertEqual(sj.loads(b'{"a": 1}'), {"a": 1})
        with self.assertRaises(ValueError):
            sj.loads("{bad")
        buf = io.StringIO()
        sj.dump({"k": "ü"}, buf)
        self.assertEqual(buf.getvalue(), '{"k": "ü"}')
        buf.seek(0)
        self.assertEqual(sj.load(buf), {"k": "ü"})
        self.assertIs(sj.JSONEncoder, __import__("json").JSONEncoder)
        self.assertTrue(hasattr(sj.import_json(), "loads"))

    def test_find_json(self):
        self.assertEqual(sj.find_json('garbage\n{\n  "a": 1\n}\ntrailing'), {"a": 1})
        self.assertEqual(sj.find_json('noise\n[1,\n 2]'), [1, 2])
        self.assertEqual(sj.find_json('{"a": 1}'), {"a": 1})
        with self.assertRaises(ValueError):
            sj.find_json("no json here")


class DictupdateTests(unittest.TestCase):
    def test_update(self):
        dest = {"a": {"b": 1, "c": [1]}, "x": 1}
        out = du.update(dest, {"a": {"d": 2, "c": [2]}, "y": 2})
        self.assertIs(out, dest)
        self.assertEqual(dest, {"a": {"b": 1, "c": [2], "d": 2}, "x": 1, "y": 2})
        dest = {"a": {"c": [1, 2]}}
        du.update(dest, {"a": {"c": [2, 3]}}, merge_lists=True)
        self.assertEqual(dest, {"a": {"c": [1, 2, 3]}})
        dest = {"a": {"b": 1}}
        du.update(dest, {"a": {"c": 2}}, recursive_update=False)
        self.assertEqual(dest, {"a": {"c": 2}})
        with self.assertRaises(TypeError):
            du.update([], {})
        od = OrderedDict([("a", 1)])
        du.update(od, {"b": 2})
        self.assertEqual(list(od), ["a", "b"])

    def test_merge(self):
        a = {"k": {"x": 1}, "l": [1]}
        b = {"k": {"y": 2}, "l": [2]}
        orig = copy.deepcopy(a)
        self.assertEqual(du.merge(a, b), {"k": {"x": 1, "y": 2}, "l": [2]})
        self.assertEqual(a, orig)  # merge_recurse works on a copy
        self.assertEqual(du.merge(a, b, merge_lists=True)["l"], [1, 2])
        self.assertEqual(du.merge(a, b, strategy="list"), {"k": [{"x": 1}, {"y": 2}], "l": [[1], [2]]})
        self.assertEqual(du.merge({"k": {"x": 1}}, {"k": {"y": 2}}, strategy="overwrite"), {"k": {"y": 2}})
        self.assertEqual(du.merge(a, b, strategy="none"), {"k": {"x": 1, "y": 2}, "l": [2]})
        self.assertEqual(du.merge(a, b, strategy="bogus"), {"k": {"x": 1, "y": 2}, "l": [2]})
        self.assertEqual(du.merge({"k": {"x": 1}}, {"k": {"y": 2}}, renderer="yamlex"), {"k": {"x": 1, "y": 2}})

    def test_key_helpers(self):
        d = {}
        du.set_dict_key_value(d, "a:b:c", 1)
        self.assertEqual(d, {"a": {"b": {"c": 1}}})
        du.update_dict_key_value(d, "a:b", {"d": 2})
        self.assertEqual(d["a"]["b"], {"c": 1, "d": 2})
        du.append_dict_key_value(d, "a:l", 1)
        du.extend_dict_key_value(d, "a:l", [2, 3])
        self.assertEqual(d["a"]["l"], [1, 2, 3])
        with self.assertRaises(SaltInvocationError):
            du.update_dict_key_value(d, "a:l", {"x": 1})
        with self.assertRaises(SaltInvocationError):
            du.append_dict_key_value(d, "a:b", 1)
        with self.assertRaises(SaltInvocationError):
            du.extend_dict_key_value(d, "a:l", 5)
        od = du.ensure_dict_key({}, "x/y", delimiter="/", ordered_dict=True)
        self.assertIsInstance(od["x"], OrderedDict)
        self.assertEqual(du.merge_list({"a": 1, "b": 2}, {"a": 3}), {"a": [1, 3], "b": 2})


class OdictTests(unittest.TestCase):
    def test_ordered_dict(self):
        od = OrderedDict([("b", 1), ("a", 2)])
        self.assertEqual(list(od), ["b", "a"])
        with self.assertRaises(TypeError):
            hash(od)
        self.assertIsInstance(od, __import__("collections").OrderedDict)

    def test_default_ordered_dict(self):
        dod = DefaultOrderedDict(list)
        dod["x"].append(1)
        dod["a"].append(2)
        self.assertEqual(list(dod.items()), [("x", [1]), ("a", [2])])
        self.assertEqual(dod.copy()["x"], [1])
        self.assertEqual(copy.deepcopy(dod)["a"], [2])
        self.assertTrue(repr(dod).startswith("DefaultOrderedDict("))
        with self.assertRaises(KeyError):
            DefaultOrderedDict()["missing"]
        with self.assertRaises(TypeError):
            DefaultOrderedDict(5)


if __name__ == "__main__":
    unittest.main()
