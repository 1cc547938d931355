import fcntl
import os
import shutil
import tempfile
import unittest

import salt.utils.files as sf
from salt.exceptions import CommandExecutionError, FileLockError


class FilesTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_fopen_text_keeps_newlines(self):
        p = self.path("crlf")
        with open(p, "wb") as fh:
            fh.write(b"a\r\nb\n")
        with sf.fopen(p) as fh:
            self.assertEqual(fh.read(), "a\r\nb\n")
        with sf.fopen(p, "r") as fh:
            self.assertEqual(fh.readlines(), ["a\r\n", "b\n"])
        # writing text does not translate either
        with sf.fopen(p, "w") as fh:
            fh.write("x\ny\n")
        with open(p, "rb") as fh:
            self.assertEqual(fh.read(), b"x\ny\n")

    def test_fopen_utf8_and_binary(self):
        p = self.path("u")
        with sf.fopen(p, "w") as fh:
            fh.write("é")
        with sf.fopen(p, "rb") as fh:
            self.assertEqual(fh.read(), "é".encode("utf-8"))
        with sf.fopen(p, binary=True) as fh:
            self.assertEqual(fh.read(), "é".encode("utf-8"))
            self.assertIn("b", fh.mode)
        with sf.fopen(p, "r", binary=True) as fh:
            self.assertEqual(fh.mode, "rb")
        with sf.fopen(p, mode="rt", binary=True) as fh:
            self.assertEqual(fh.mode, "rb")
        with sf.fopen(p, "r", encoding="latin-1") as fh:
            self.assertEqual(fh.read(), "Ã©")

    def test_fopen_cloexec_and_fds(self):
        p = self.path("c")
        with sf.fopen(p, "w") as fh:
            flags = fcntl.fcntl(fh.fileno(), fcntl.F_GETFD)
            self.assertTrue(flags & fcntl.FD_CLOEXEC)
        for fd in (0, 1, 2, False, True):
            with self.assertRaises(TypeError):
                sf.fopen(fd)
        with self.assertRaises(FileNotFoundError):
            sf.fopen(self.path("missing"))

    def test_flopen_and_fpopen(self):
        p = self.path("l")
        with sf.flopen(p, "w") as fh:
            fh.write("locked")
        with sf.flopen(p) as fh:
            self.assertEqual(fh.read(), "locked")
        with sf.fpopen(p, "w", mode=0o600) as fh:
            fh.write("x")
        self.assertEqual(os.stat(p).st_mode & 0o777, 0o600)

    def test_mkstemp(self):
        path = sf.mkstemp(dir=self.dir)
        self.assertTrue(os.path.basename(path).startswith("__salt.tmp."))
        self.assertTrue(os.path.isfile(path))
        fd, path2 = sf.mkstemp(dir=self.dir, close_fd=False)
        os.close(fd)
        self.assertTrue(os.path.isfile(path2))

    def test_remove_rm_rf_safe_rm(self):
        p = self.path("r")
        open(p, "w").close()
        sf.remove(p)
        self.assertFalse(os.path.exists(p))
        sf.remove(p)  # missing: no error
        sf.safe_rm(p)
        d = self.path("tree/sub")
        os.makedirs(d)
        open(os.path.join(d, "f"), "w").close()
        sf.rm_rf(self.path("tree"))
        self.assertFalse(os.path.exists(self.path("tree")))

    def test_is_text_binary_empty(self):
        t, b, e = self.path("t"), self.path("b"), self.path("e")
        with open(t, "w") as fh:
            fh.write("hello\n")
        with open(b, "wb") as fh:
            fh.write(b"\x00\x01\x02binary")
        open(e, "w").close()
        self.assertTrue(sf.is_text(t))
        self.assertFalse(sf.is_text(b))
        self.assertTrue(sf.is_text(e))
        self.assertFalse(sf.is_text(self.path("missing")))
        with open(t, "rb") as fh:
            self.assertTrue(sf.is_text(fh))
        self.assertFalse(sf.is_binary(t))
        self.assertTrue(sf.is_binary(b))
        self.assertFalse(sf.is_binary(self.path("missing")))
        self.assertTrue(sf.is_empty(e))
        self.assertFalse(sf.is_empty(t))
        self.assertFalse(sf.is_empty(self.path("missing")))

    def test_list_files_and_walk(self):
        os.makedirs(self.path("a/b"))
        open(self.path("a/b/f"), "w").close()
        os.symlink(self.path("a"), self.path("a/b/loop"))
        files = sorted(sf.list_files(self.path("a")))
        self.assertEqual(files, sorted([self.path("a"), self.path("a/b"), self.path("a/b/f"),
                                        self.path("a/b/loop")]))

    def test_modes_and_sizes(self):
        self.assertEqual(sf.normalize_mode("644"), "0644")
        self.assertEqual(sf.normalize_mode(644), "0644")
        self.assertEqual(sf.normalize_mode("0o755"), "0755")
        self.assertEqual(sf.normalize_mode("'0600'"), "0600")
        self.assertIsNone(sf.normalize_mode(None))
        self.assertEqual(sf.st_mode_to_octal(0o100644), "0644")
        self.assertEqual(sf.st_mode_to_octal(None), "")
        self.assertEqual(sf.human_size_to_bytes("2M"), 2 * 1024 ** 2)
        self.assertEqual(sf.human_size_to_bytes(10), 10)
        with self.assertRaises(ValueError):
            sf.human_size_to_bytes("2MB")

    def test_misc(self):
        self.assertEqual(sf.guess_archive_type("x.tar.gz"), "tar")
        self.assertEqual(sf.guess_archive_type("x.ZIP"), "zip")
        self.assertIsNone(sf.guess_archive_type("x.txt"))
        self.assertEqual(sf.safe_filename_leaf("a/b:c"), "a%2Fb%3Ac")
        self.assertEqual(sf.safe_filepath("/a/b:c"), "/a/b%3Ac")
        old = sf.get_umask()
        with sf.set_umask(0o077):
            self.assertEqual(sf.get_umask(), 0o077)
        self.assertEqual(sf.get_umask(), old)

    def test_copyfile_and_rename(self):
        src, dst = self.path("src"), self.path("dst")
        with open(src, "w") as fh:
            fh.write("new")
        with open(dst, "w") as fh:
            fh.write("old")
        os.chmod(dst, 0o640)
        sf.copyfile(src, dst)
        with open(dst) as fh:
            self.assertEqual(fh.read(), "new")
        self.assertEqual(os.stat(dst).st_mode & 0o777, 0o640)
        with self.assertRaises(OSError):
            sf.copyfile(self.path("missing"), dst)
        sf.rename(src, self.path("moved"))
        self.assertTrue(os.path.exists(self.path("moved")))

    def test_process_read_exception(self):
        import errno

        with self.assertRaisesRegex(CommandExecutionError, "does not exist"):
            sf.process_read_exception(OSError(errno.ENOENT, "x"), "/p")
        with self.assertRaisesRegex(CommandExecutionError, "Permission denied reading from /p"):
            sf.process_read_exception(OSError(errno.EACCES, "x"), "/p")
        self.assertIsNone(sf.process_read_exception(OSError(errno.ENOENT, "x"), "/p", ignore=errno.ENOENT))

    def test_wait_lock(self):
        p = self.path("w")
        with sf.wait_lock(p):
            self.assertTrue(os.path.exists(p + ".w"))
            with self.assertRaises(FileLockError):
                with sf.wait_lock(p, timeout=0.2, sleep=0.05):
                    pass
        self.assertFalse(os.path.exists(p + ".w"))

    def test_get_encoding(self):
        p = self.path("enc")
        with open(p, "wb") as fh:
            fh.write(b"\xef\xbb\xbfhi")
        self.assertEqual(sf.get_encoding(p), "UTF-8")
        with open(p, "wb") as fh:
            fh.write(b"plain")
        self.assertEqual(sf.get_encoding(p), "UTF-8")
        with self.assertRaises(CommandExecutionError):
            sf.get_encoding(self.dir)


if __name__ == "__main__":
    unittest.main()
