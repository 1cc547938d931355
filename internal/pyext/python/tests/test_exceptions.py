import unittest

import salt.exceptions as se


class ExceptionTests(unittest.TestCase):
    def test_hierarchy(self):
        for name in ("CommandExecutionError", "SaltInvocationError", "CommandNotFoundError",
                     "MinionError", "SaltRenderError", "TimedProcTimeoutError",
                     "SaltReqTimeoutError", "LoaderError", "TemplateError", "PkgParseError",
                     "SaltCacheError", "FileLockError", "GitLockError", "SaltClientTimeout"):
            self.assertTrue(issubclass(getattr(se, name), se.SaltException), name)
        self.assertTrue(issubclass(se.SaltException, Exception))
        self.assertTrue(issubclass(se.SaltInvocationError, TypeError))
        self.assertTrue(issubclass(se.ArgumentValueError, se.CommandExecutionError))
        self.assertTrue(issubclass(se.CheckError, se.CommandExecutionError))
        self.assertTrue(issubclass(se.VMwareMultipleObjectsError, se.VMwareObjectRetrievalError))
        self.assertTrue(issubclass(se.CodePageError, se.CommandExecutionError))
        self.assertTrue(issubclass(se.SaltCloudSystemExit, se.SaltCloudException))
        self.assertTrue(issubclass(se.SaltSystemExit, SystemExit))
        self.assertTrue(issubclass(se.MasterExit, SystemExit))
        self.assertTrue(issubclass(se.LoggingRuntimeError, RuntimeError))
        self.assertFalse(issubclass(se.GitLockError, OSError))

    def test_salt_exception_str(self):
        exc = se.SaltException("boom")
        self.assertEqual(str(exc), "boom")
        self.assertEqual(exc.message, "boom")
        self.assertEqual(exc.strerror, "boom")
        self.assertEqual(exc.args, ("boom",))
        self.assertEqual(exc.pack(), {"message": "boom", "args": ("boom",)})
        # non-strings are str()-ed
        self.assertEqual(str(se.SaltException(42)), "42")
        self.assertEqual(str(se.SaltException()), "")
        self.assertEqual(str(se.MinionError("m")), "m")
        self.assertEqual(se.get_error_message(se.SaltException("x")), "x")
        self.assertEqual(se.get_error_message(Exception()), "")

    def test_command_execution_error(self):
        exc = se.CommandExecutionError("failed")
        self.assertEqual(str(exc), "failed")
        self.assertEqual(exc.error, "failed")
        self.assertIsNone(exc.info)
        self.assertEqual(exc.strerror_without_changes, "failed")
        self.assertEqual(str(se.CommandExecutionError(b"bytes msg")), "bytes msg")
        self.assertEqual(str(se.CommandExecutionError(ValueError("inner"))), "inner")

    def test_command_execution_error_info(self):
        exc = se.CommandExecutionError("failed", info={"b": [1, {"c": "x"}], "a": True, "changes": {"k": 1}})
        expected = (
            "failed. Additional info follows:\n\n"
            "a:\n    True\n"
            "b:\n    - 1\n    |_\n      ----------\n      c:\n          x\n"
            "changes:\n    ----------\n    k:\n        1"
        )
        self.assertEqual(str(exc), expected)
        self.assertEqual(
            exc.strerror_without_changes,
            "failed. Additional info follows:\n\n"
            "a:\n    True\n"
            "b:\n    - 1\n    |_\n      ----------\n      c:\n          x",
        )
        only_changes = se.CommandExecutionError("x!", info={"changes": {}})
        self.assertEqual(only_changes.strerror_without_changes, "x!")
        self.assertTrue(str(only_changes).startswith("x! Additional info follows:"))
        listinfo = se.CommandExecutionError("", info=["a", "b"])
        self.assertEqual(str(listinfo), "Additional info follows:\n\n- a\n- b")

    def test_render_error(self):
        buf = "\n".join("line{}".format(i) for i in range(1, 21))
        exc = se.SaltRenderError("bad thing", line_num=10, buf=buf)
        self.assertEqual(exc.line_num, 10)
        self.assertEqual(exc.buffer, buf)
        self.assertTrue(str(exc).startswith("bad thing; line 10\n\n---\n[...]\nline5\n"))
        self.assertIn("line10    <======================\n", str(exc))
        self.assertTrue(str(exc).endswith("line15\n[...]\n---"))
        self.assertEqual(str(se.SaltRenderError("plain")), "plain")
        self.assertEqual(str(se.SaltRenderError("t", trace="TB")), "t\nTB\n")

    def test_extra_attributes(self):
        self.assertEqual(se.SaltClientTimeout("t", jid="123").jid, "123")
        self.assertEqual(se.GitLockError(17, "locked").errno, 17)
        self.assertEqual(se.FileLockError("l", time_start=5).time_start, 5)
        exc = se.SaltCloudSystemExit("bye")
        self.assertEqual(exc.exit_code, 1)
        self.assertEqual(exc.message, "bye")

    def test_raise_and_catch_as_typeerror(self):
        with self.assertRaises(TypeError):
            raise se.SaltInvocationError("bad args")


if __name__ == "__main__":
    unittest.main()
