import datetime
import unittest
import warnings

import salt.utils.versions as sv
import salt.version


class VersionTests(unittest.TestCase):
    def test_salt_version(self):
        self.assertEqual(salt.version.__version__, "3006.0")
        self.assertEqual(salt.version.__version_info__, (3006, 0))
        v = salt.version.__saltstack_version__
        self.assertEqual(v.info, (3006, 0))
        self.assertEqual(v.string, "3006.0")
        self.assertEqual(str(v), "3006.0")
        self.assertEqual(v.formatted_version, "3006.0 (Sulfur)")
        self.assertTrue(v >= (3005,))
        self.assertTrue(v < "3007")
        self.assertTrue(v == "Sulfur")
        self.assertEqual(salt.version.SaltStackVersion.from_name("Argon").info, (3008, 0))
        self.assertEqual(list(salt.version.salt_information()), [("Salt", "3006.0")])

    def test_loose_version(self):
        LV = sv.LooseVersion
        self.assertLess(LV("1.2.9"), LV("1.2.10"))
        self.assertEqual(LV("1.0"), "1.0")
        self.assertGreater(LV("2.0rc1"), "2.0")
        self.assertLess(LV("1.0a"), LV("1.0b"))
        # Salt's fix: mixed int/str parts compare as padded strings, no TypeError
        # ints become '00000001'-style strings, which sort before letters
        self.assertGreater(LV("1.a"), LV("1.1"))
        self.assertLess(LV("1.1a"), LV("1.2"))
        self.assertEqual(LV("1.2.3").version, [1, 2, 3])
        self.assertEqual(str(LV("1.2")), "1.2")
        self.assertEqual(repr(LV("1.2")), "LooseVersion ('1.2')")
        self.assertIs(LV("1") .__eq__(5), NotImplemented)

    def test_version_cmp_and_compare(self):
        self.assertEqual(sv.version_cmp("1.2.10", "1.2.9"), 1)
        self.assertEqual(sv.version_cmp("1.0", "1.0"), 0)
        self.assertEqual(sv.version_cmp("0.9", "1.0"), -1)
        self.assertEqual(sv.version_cmp("1:2.0", "2:1.0"), -1)
        self.assertEqual(sv.version_cmp("1:2.0", "2:1.0", ignore_epoch=True), 1)
        self.assertEqual(sv.version_cmp("1.8.13", "1.8.13"), 0)
        self.assertTrue(sv.compare("1.0", "<", "1.1"))
        self.assertTrue(sv.compare("1.0", "<=", "1.0"))
        self.assertTrue(sv.compare("1.1", "!=", "1.0"))
        self.assertTrue(sv.compare("2", ">=", "1"))
        self.assertFalse(sv.compare("2", ">", "3"))
        self.assertFalse(sv.compare("1", "=~", "1"))
        self.assertTrue(sv.compare("1", "<", "2", cmp_func=lambda a, b, ignore_epoch=False: -5))
        self.assertFalse(sv.compare("1", "<", "2", cmp_func=lambda a, b, ignore_epoch=False: None))

    def test_pep440_version(self):
        V = sv.Version
        self.assertLess(V("1.0.dev1"), V("1.0a1"))
        self.assertLess(V("1.0a1"), V("1.0b1"))
        self.assertLess(V("1.0rc1"), V("1.0"))
        self.assertLess(V("1.0"), V("1.0.post1"))
        self.assertEqual(V("1.0"), V("1.0.0"))
        self.assertEqual(V("1.0"), "1.0")
        self.assertLess(V("1!0.1"), V("2!0.0") )
        self.assertGreater(V("1!0.1"), V("9.9"))
        self.assertLess(V("1.0"), V("1.0+local"))
        self.assertEqual(str(V("1.0-RC1")), "1.0rc1")
        self.assertEqual(V("3006.1").major, 3006)
        self.assertTrue(V("1.0a1").is_prerelease)
        with self.assertRaises(sv.InvalidVersion):
            V("not a version")

    def test_warn_until(self):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sv.warn_until("Argon", "gone in {version}")
        self.assertEqual(str(caught[0].message), "gone in 3008.0 (Argon)")
        self.assertIs(caught[0].category, DeprecationWarning)
        with self.assertRaisesRegex(RuntimeError, "is supposed to be shown until version 3005"):
            sv.warn_until(3005, "old")
        with self.assertRaises(RuntimeError):
            sv.warn_until("Nonsense", "x")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sv.kwargs_warn_until({"old": 1}, "Argon")
        self.assertIn("'old'", str(caught[0].message))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sv.warn_until_date("29991231", "until {date}")
        self.assertEqual(str(caught[0].message), "until 2999-12-31")
        with self.assertRaises(RuntimeError):
            sv.warn_until_date(datetime.date(2000, 1, 1), "past")


if __name__ == "__main__":
    unittest.main()
