import os
import shutil
import stat
import sys
import tempfile
import unittest
from unittest import mock

import salt.utils.args as sa
import salt.utils.path as sp
import salt.utils.platform as spf
from salt.exceptions import CommandNotFoundError, SaltInvocationError


class PathTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def make_exe(self, name, mode=0o755):
        p = os.path.join(self.dir, name)
        with open(p, "w") as fh:
            fh.write("#!/bin/sh\n")
        os.chmod(p, mode)
        return p

    def test_which(self):
        exe = self.make_exe("brine-test-tool")
        self.make_exe("not-exec", 0o644)
        with mock.patch.dict(os.environ, {"PATH": self.dir}):
            self.assertEqual(sp.which("brine-test-tool"), exe)
            self.assertIsNone(sp.which("not-exec"))
            self.assertIsNone(sp.which("no-such-tool-anywhere"))
            self.assertEqual(sp.which(exe), exe)
            self.assertIsNone(sp.which(""))
            self.assertIsNone(sp.which(None))
            self.assertEqual(sp.which_bin(["no-such-tool", "brine-test-tool"]), exe)
            self.assertEqual(sp.which_bin("brine-test-tool"), exe)
            self.assertIsNone(sp.which_bin(["nope"]))
            self.assertIsNone(sp.which_bin(5))
            sp.check_or_die("brine-test-tool")
            with self.assertRaisesRegex(CommandNotFoundError, "'nope' is not in the path"):
                sp.check_or_die("nope")
            with self.assertRaises(CommandNotFoundError):
                sp.check_or_die(None)

    def test_which_adds_system_dirs_and_symlinks(self):
        with mock.patch.dict(os.environ, {"PATH": self.dir}):
            self.assertEqual(sp.which("sh"), shutil.which("sh", path="/sbin:/bin:/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin"))
        exe = self.make_exe("real")
        link = os.path.join(self.dir, "alias")
        os.symlink("real", link)
        with mock.patch.dict(os.environ, {"PATH": self.dir}):
            self.assertEqual(sp.which("alias"), link)

    def test_join(self):
        self.assertEqual(sp.join("/a", "/b", "c/"), "/a/b/c")
        self.assertEqual(sp.join("a", "b"), "a/b")
        self.assertEqual(sp.join("/a/", "../b"), "/b")
        self.assertEqual(sp.join("/a"), "/a")
        self.assertEqual(sp.join(), "")
        self.assertEqual(sp.join("/a", "b", use_posixpath=True), "/a/b")
        self.assertEqual(sp.join(b"/a", "b"), "/a/b")
        with self.assertRaises(SaltInvocationError):
            sp.join("/a", bogus=1)

    def test_misc(self):
        self.assertEqual(sp.sanitize_win_path("a<b>:c|d?e*"), "a_b__c_d_e_")
        self.assertFalse(sp.safe_path("C:\\"))
        self.assertFalse(sp.safe_path("C:\\Windows\\x"))
        self.assertTrue(sp.safe_path("C:\\Windows\\Temp", allow_path="C:\\Windows\\Temp"))
        self.assertTrue(sp.safe_path("/srv/data"))
        self.assertEqual(sp.expand("~"), os.path.realpath(os.path.expanduser("~")))
        os.makedirs(os.path.join(self.dir, "x"))
        walked = list(sp.os_walk(self.dir))
        self.assertEqual(walked[0][0], self.dir)
        self.assertIsInstance(walked[0], tuple)


class PlatformTests(unittest.TestCase):
    def test_flags(self):
        self.assertEqual(spf.is_linux(), sys.platform.startswith("linux"))
        self.assertEqual(spf.is_windows(), sys.platform.startswith("win"))
        self.assertEqual(spf.is_darwin(), sys.platform.startswith("darwin"))
        self.assertFalse(spf.is_proxy())
        for fn in (spf.is_sunos, spf.is_smartos, spf.is_smartos_globalzone, spf.is_smartos_zone,
                   spf.is_freebsd, spf.is_netbsd, spf.is_openbsd, spf.is_aix, spf.is_junos):
            self.assertIsInstance(fn(), bool)
        self.assertIsInstance(spf.is_fedora(), bool)
        self.assertIsInstance(spf.is_aarch64(), bool)
        self.assertIsInstance(spf.spawning_platform(), bool)
        name, version, codename = spf.linux_distribution()
        self.assertIsInstance(name, str)


class ArgsTests(unittest.TestCase):
    def test_clean_invalid(self):
        self.assertEqual(sa.clean_kwargs(a=1, __pub_fun="x", __env__="b"), {"a": 1})
        with self.assertRaisesRegex(SaltInvocationError, "The following keyword arguments are not valid: a=1"):
            sa.invalid_kwargs({"a": 1})
        self.assertEqual(sa.invalid_kwargs(["x", "y"], raise_exc=False),
                         "The following keyword arguments are not valid: x, y")

    def test_yamlify_arg(self):
        self.assertEqual(sa.yamlify_arg("1"), 1)
        self.assertEqual(sa.yamlify_arg("1.5"), 1.5)
        self.assertEqual(sa.yamlify_arg("true"), True)
        self.assertIsNone(sa.yamlify_arg("None"))
        self.assertIsNone(sa.yamlify_arg("null"))
        self.assertEqual(sa.yamlify_arg("[1, 2]"), [1, 2])
        self.assertEqual(sa.yamlify_arg("{a: 1}"), {"a": 1})
        self.assertEqual(sa.yamlify_arg("a: 1"), "a: 1")
        self.assertEqual(sa.yamlify_arg("- a"), "- a")
        self.assertEqual(sa.yamlify_arg("1_000"), "1_000")
        self.assertEqual(sa.yamlify_arg(""), "")
        self.assertEqual(sa.yamlify_arg("a\nb"), "a\nb")
        self.assertEqual(sa.yamlify_arg("#"), "#")
        self.assertEqual(sa.yamlify_arg("foo #bar"), "foo #bar")
        self.assertEqual(sa.yamlify_arg("|"), "|")
        self.assertEqual(sa.yamlify_arg("!"), "!")
        self.assertEqual(sa.yamlify_arg("text"), "text")
        self.assertEqual(sa.yamlify_arg(5), 5)
        self.assertEqual(sa.yamlify_arg("'quoted'"), "quoted")

    def test_parse_input(self):
        self.assertEqual(sa.parse_kwarg("name=value"), ("name", "value"))
        self.assertEqual(sa.parse_kwarg("a==b"), (None, None))
        self.assertEqual(sa.parse_input(["a", "b=1", "2"], condition=False), (["a", 2], {"b": 1}))
        self.assertEqual(sa.parse_input(["x=1"], no_parse=["x"], condition=False), ([], {"x": "1"}))
        self.assertEqual(sa.parse_input(["a", "k=v"]), ["a", {"__kwarg__": True, "k": "v"}])
        self.assertEqual(sa.parse_input([{"__kwarg__": True, "z": 1}], condition=False), ([], {"z": 1}))
        self.assertEqual(sa.condition_input([20200101010101010101], {}), ["20200101010101010101"])

    def test_argspec(self):
        def fun(a, b, c=1, *args, d=2, **kw):
            pass

        spec = sa.get_function_argspec(fun)
        self.assertEqual(spec.args, ["a", "b", "c"])
        self.assertEqual(spec.varargs, "args")
        self.assertEqual(spec.keywords, "kw")
        self.assertEqual(spec.defaults, (1,))
        self.assertEqual(sa.arg_lookup(fun), {"args": ["a", "b"], "kwargs": {"c": 1}})
        with self.assertRaises(TypeError):
            sa.get_function_argspec(5)

        class K:
            def meth(self, x, y=2):
                pass

        self.assertEqual(sa.get_function_argspec(K.meth, is_class_method=True).args, ["x", "y"])
        report = sa.argspec_report({"mod.fun": fun, "modx.other": fun}, "mod")
        self.assertEqual(list(report), ["mod.fun"])
        self.assertEqual(report["mod.fun"], {"args": ["a", "b", "c"], "defaults": (1,), "varargs": True, "kwargs": True})

    def test_format_call(self):
        def fun(a, b=1):
            pass

        self.assertEqual(sa.format_call(fun, {"a": 5, "b": 6}), {"args": [5], "kwargs": {"b": 6}})
        with self.assertRaisesRegex(SaltInvocationError, "fun takes at least 1 argument \\(0 given\\)"):
            sa.format_call(fun, {})
        with self.assertRaisesRegex(SaltInvocationError, "'c' is an invalid keyword argument for"):
            sa.format_call(fun, {"a": 1, "c": 2})
        self.assertEqual(sa.format_call(fun, {"a": 1, "c": 2}, expected_extra_kws=("c",))["args"], [1])

    def test_misc(self):
        self.assertEqual(sa.split_input("a, b,c"), ["a", "b", "c"])
        self.assertEqual(sa.split_input([1, 2], mapper=str), ["1", "2"])
        self.assertEqual(sa.split_input(5), ["5"])
        self.assertTrue(sa.test_mode(TEST=True))
        self.assertTrue(sa.test_mode(test="true"))
        self.assertFalse(sa.test_mode(test=False, other=True))
        self.assertEqual(sa.shlex_split("a 'b c'"), ["a", "b c"])
        self.assertEqual(sa.shlex_split(["x"]), ["x"])
        self.assertEqual(sa.prepare_kwargs({"a": 1, "b": 2}, ["a"]), ({"a": 1}, {"b": 2}))


if __name__ == "__main__":
    unittest.main()
