import unittest

import salt.utils.stringutils as su


class StringutilsTests(unittest.TestCase):
    def test_to_bytes(self):
        self.assertEqual(su.to_bytes("abc"), b"abc")
        self.assertEqual(su.to_bytes("é"), "é".encode("utf-8"))
        self.assertEqual(su.to_bytes(b"x"), b"x")
        self.assertEqual(su.to_bytes(bytearray(b"y")), b"y")
        self.assertIsInstance(su.to_bytes(bytearray(b"y")), bytes)
        self.assertEqual(su.to_bytes("é", encoding="latin-1"), b"\xe9")
        with self.assertRaises(TypeError):
            su.to_bytes(1)
        with self.assertRaises(UnicodeEncodeError):
            su.to_bytes("é", encoding="ascii")
        self.assertEqual(su.to_bytes("é", encoding="ascii", errors="replace"), b"?")
        with self.assertRaises(ValueError):
            su.to_bytes("x", encoding=())

    def test_to_str_and_unicode(self):
        for fn in (su.to_str, su.to_unicode):
            self.assertEqual(fn("abc"), "abc")
            self.assertEqual(fn(b"abc"), "abc")
            self.assertEqual(fn(bytearray(b"abc")), "abc")
            self.assertEqual(fn("é".encode("utf-8")), "é")
            self.assertEqual(fn(b"\xe9", encoding="latin-1"), "é")
            # a list of encodings: tried in turn
            self.assertEqual(fn(b"\xe9", encoding=("utf-8", "latin-1")), "é")
            with self.assertRaises(TypeError):
                fn(None)
            with self.assertRaises(UnicodeDecodeError):
                fn(b"\xff\xfe\xfd", encoding="utf-8")
            # NFC normalization on request
            self.assertEqual(fn("e\u0301", normalize=True), "\u00e9")
            self.assertEqual(fn("e\u0301"), "e\u0301")

    def test_is_binary(self):
        self.assertFalse(su.is_binary(""))
        self.assertFalse(su.is_binary(None))
        self.assertFalse(su.is_binary(123))
        self.assertFalse(su.is_binary("plain text\nwith lines\t"))
        self.assertTrue(su.is_binary("nul\0inside"))
        self.assertTrue(su.is_binary(b"nul\0inside"))
        self.assertFalse(su.is_binary(b"ascii bytes"))
        self.assertTrue(su.is_binary(bytes(range(128, 256))))
        # exactly at the 30% limit is still text; above it is binary
        self.assertFalse(su.is_binary("aaaaaaa\x01\x02\x03"))
        self.assertTrue(su.is_binary("aaaaaa\x01\x02\x03\x04"))

    def test_small_helpers(self):
        self.assertEqual(su.to_num("1"), 1)
        self.assertEqual(su.to_num("1.5"), 1.5)
        self.assertEqual(su.to_num("x"), "x")
        self.assertIsNone(su.to_none("  "))
        self.assertEqual(su.to_none(" a "), " a ")
        self.assertEqual(su.is_quoted('"a"'), '"')
        self.assertEqual(su.is_quoted("'a'"), "'")
        self.assertEqual(su.is_quoted("a"), "")
        self.assertEqual(su.dequote("'a'"), "a")
        self.assertEqual(su.dequote("a"), "a")
        self.assertTrue(su.is_hex("ff"))
        self.assertFalse(su.is_hex("zz"))
        self.assertFalse(su.is_hex(None))
        self.assertTrue(su.contains_whitespace("a b"))
        self.assertFalse(su.contains_whitespace("ab"))
        self.assertEqual(len(su.random(16)), 16)
        self.assertEqual(su.camel_to_snake_case("CamelCaseHTTPServer"), "camel_case_http_server")
        self.assertEqual(su.snake_to_camel_case("snake_case_x"), "snakeCaseX")
        self.assertEqual(su.snake_to_camel_case("snake_case", uppercamel=True), "SnakeCase")

    def test_human_to_bytes(self):
        self.assertEqual(su.human_to_bytes("2K"), 2048)
        self.assertEqual(su.human_to_bytes("2KiB"), 2048)
        self.assertEqual(su.human_to_bytes("2KB"), 2048)
        self.assertEqual(su.human_to_bytes("2KB", handle_metric=True), 2000)
        self.assertEqual(su.human_to_bytes("1.5G"), int(1.5 * 2 ** 30))
        self.assertEqual(su.human_to_bytes("10"), 10)
        self.assertEqual(su.human_to_bytes("10", default_unit="M"), 10 * 2 ** 20)
        self.assertEqual(su.human_to_bytes("junk"), 0)
        self.assertEqual(su.human_to_bytes("5X"), 0)

    def test_expr_and_lists(self):
        self.assertTrue(su.expr_match("web01", "web*"))
        self.assertTrue(su.expr_match("web01", r"web\d+"))
        self.assertFalse(su.expr_match("db01", "web*"))
        self.assertTrue(su.check_whitelist_blacklist("a", whitelist=["a", "b"]))
        self.assertFalse(su.check_whitelist_blacklist("c", whitelist="a"))
        self.assertFalse(su.check_whitelist_blacklist("a", blacklist=["a"]))
        self.assertTrue(su.check_whitelist_blacklist("b", blacklist=["a"]))
        self.assertFalse(su.check_whitelist_blacklist("a", whitelist=["a"], blacklist=["a"]))
        self.assertTrue(su.check_whitelist_blacklist("x"))
        with self.assertRaises(TypeError):
            su.check_whitelist_blacklist("x", whitelist=5)
        self.assertTrue(su.check_include_exclude("/a/b.txt", include_pat="*.txt"))
        self.assertFalse(su.check_include_exclude("/a/b.txt", exclude_pat="*.txt"))
        self.assertTrue(su.check_include_exclude("/a/b.txt", include_pat="E@b\\.t"))
        self.assertFalse(su.check_include_exclude("/a/b.txt", include_pat=["*.py", "*.c"]))
        self.assertFalse(su.check_include_exclude("/a/b.txt", include_pat="*", exclude_pat=["*.txt"]))
        self.assertTrue(su.check_include_exclude("/a/b.txt"))

    def test_get_context(self):
        text = "\n".join(str(i) for i in range(1, 4))
        self.assertEqual(su.get_context(text, 2, marker=" <--"), "---\n1\n2 <--\n3\n---")
        self.assertEqual(su.get_context(text, 10), text)
        long = "\n".join(str(i) for i in range(1, 30))
        ctx = su.get_context(long, 15, num_lines=2)
        self.assertEqual(ctx, "---\n[...]\n13\n14\n15\n16\n17\n[...]\n---")

    def test_get_diff(self):
        diff = su.get_diff(["a\n", "b\n"], ["a\n", "c\n"])
        self.assertIn("-b\n", diff)
        self.assertIn("+c\n", diff)

    def test_whitespace_regex(self):
        import re

        regex = su.build_whitespace_split_regex("if  [ -z  x ]; then")
        self.assertTrue(re.search(regex, "if [ -z x ]; then"))
        self.assertTrue(re.search(regex, "if    [   -z x ];    then"))


if __name__ == "__main__":
    unittest.main()
