"""
salt.utils.stringutils for brine: string conversion and inspection helpers
with Salt 3006's signatures and behaviour.
"""

import base64
import builtins
import difflib
import fnmatch
import logging
import os
import re
import shlex
import unicodedata

log = logging.getLogger(__name__)


def _system_encoding():
    return getattr(builtins, "__salt_system_encoding__", "utf-8")


def _encodings(encoding):
    if encoding is None:
        # utf-8 first, then the system's encoding
        encoding = ("utf-8", _system_encoding())
    if not isinstance(encoding, (tuple, list)):
        encoding = (encoding,)
    if not encoding:
        raise ValueError("encoding cannot be empty")
    return encoding


def to_bytes(s, encoding=None, errors="strict"):
    """bytes for bytes, bytearray or str (tries each encoding in turn)."""
    encs = _encodings(encoding)
    if isinstance(s, bytes):
        return s
    if isinstance(s, bytearray):
        return bytes(s)
    if isinstance(s, str):
        last = None
        for enc in encs:
            try:
                return s.encode(enc, errors)
            except UnicodeEncodeError as err:
                last = err
        raise last
    raise TypeError("expected str, bytes, or bytearray not {}".format(type(s)))


def to_str(s, encoding=None, errors="strict", normalize=False):
    """str for str, bytes or bytearray (tries each encoding in turn);
    ``normalize`` applies NFC normalization."""
    encs = _encodings(encoding)

    def norm(v):
        try:
            return unicodedata.normalize("NFC", v) if normalize else v
        except TypeError:
            return v

    if isinstance(s, str):
        return norm(s)
    if isinstance(s, (bytes, bytearray)):
        last = None
        for enc in encs:
            try:
                return norm(s.decode(enc, errors))
            except UnicodeDecodeError as err:
                last = err
        raise last
    raise TypeError("expected str, bytes, or bytearray not {}".format(type(s)))


def to_unicode(s, encoding=None, errors="strict", normalize=False):
    """On Python 3 the same as to_str."""
    encs = _encodings(encoding)
    if isinstance(s, str):
        return unicodedata.normalize("NFC", s) if normalize else s
    if isinstance(s, (bytes, bytearray)):
        out = to_str(s, encs, errors)
        return unicodedata.normalize("NFC", out) if normalize else out
    raise TypeError("expected str, bytes, or bytearray not {}".format(type(s)))


def to_num(text):
    """int if text is an integer, else float if a real number, else text."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def to_none(text):
    """None for an empty or all-whitespace string, else text."""
    if str(text).strip():
        return text
    return None


def is_quoted(value):
    """The quote character wrapping value ('"' or "'"), else ''."""
    if (
        isinstance(value, str)
        and value[0] == value[-1]
        and value.startswith(("'", '"'))
    ):
        return value[0]
    return ""


def dequote(value):
    """value without its wrapping quotes."""
    if is_quoted(value):
        return value[1:-1]
    return value


def is_hex(value):
    """True if value parses as a hexadecimal integer."""
    try:
        int(value, 16)
    except (TypeError, ValueError):
        return False
    return True


_TEXT_CHARS = "".join(chr(c) for c in range(32, 127)) + "\n\r\t\b"


def is_binary(data):
    """True if the str/bytes looks binary: it has a NUL, or more than 30%
    of its characters are outside printable ASCII and \\n\\r\\t\\b."""
    if not data or not isinstance(data, (str, bytes)):
        return False
    if isinstance(data, bytes):
        if b"\0" in data:
            return True
        nontext = data.translate(None, _TEXT_CHARS.encode("ascii"))
    else:
        if "\0" in data:
            return True
        nontext = data.translate(str.maketrans("", "", _TEXT_CHARS))
    return float(len(nontext)) / len(data) > 0.30


def random(size=32):
    """A random string of base64 characters, size long."""
    key = os.urandom(size)
    return to_unicode(base64.b64encode(key).replace(b"\n", b"")[:size])


def contains_whitespace(text):
    """True if text has any whitespace character."""
    return any(ch.isspace() for ch in text)


def human_to_bytes(size, default_unit="B", handle_metric=False):
    """Bytes for a human size such as 2G, 30MB, 64KiB (0 if malformed).
    KB/MB/... are powers of 1024 unless handle_metric is True."""
    m = re.match(r"(?P<value>[0-9.]*)\s*(?P<unit>.*)$", str(size).strip())
    value = m.group("value")
    unit = m.group("unit").lower() or default_unit.lower()
    try:
        value = int(value)
    except ValueError:
        try:
            value = float(value)
        except ValueError:
            return 0
    decimal = False
    if re.match(r"[kmgtpezy]b$", unit):
        decimal = bool(handle_metric)
    elif not re.match(r"(b|[kmgtpezy](ib)?)$", unit):
        return 0
    power = "bkmgtpezy".index(unit[0])
    value *= 10 ** (power * 3) if decimal else 2 ** (power * 10)
    return int(value)


def build_whitespace_split_regex(text):
    """A regex matching text while ignoring added/removed whitespace and
    line breaks between its shell-like tokens."""

    def tokens(line):
        lexer = shlex.shlex(line)
        lexer.whitespace_split = True
        lexer.commenters = ""
        if "'\\\"" in line:
            lexer.quotes = ""
        elif "'" in line:
            lexer.quotes = '"'
        elif '"' in line:
            lexer.quotes = "'"
        return list(lexer)

    regex = r""
    for line in text.splitlines():
        parts = [re.escape(s) for s in tokens(line)]
        regex += r"(?:[\s]+)?{}(?:[\s]+)?".format(r"(?:[\s]+)?".join(parts))
    return r"(?m)^{}$".format(regex)


def expr_match(line, expr):
    """True if line matches expr as a glob, or as a whole-string regex."""
    try:
        if fnmatch.fnmatch(line, expr):
            return True
        try:
            if re.match(r"\A{}\Z".format(expr), line):
                return True
        except re.error:
            pass
    except TypeError:
        log.exception("Value %r or expression %r is not a string", line, expr)
    return False


def _as_list(value, what):
    if not value:
        return []
    if isinstance(value, str):
        return [value]
    if not hasattr(value, "__iter__"):
        raise TypeError(
            "Expecting iterable {}, but got {} ({})".format(
                what, type(value).__name__, value
            )
        )
    return value


def check_whitelist_blacklist(value, whitelist=None, blacklist=None):
    """False if value matches the blacklist; with a whitelist, True only
    if it matches it; True when neither list is given."""
    blacklist = _as_list(blacklist, "blacklist")
    whitelist = _as_list(whitelist, "whitelist")
    in_black = any(expr_match(value, e) for e in blacklist)
    in_white = any(expr_match(value, e) for e in whitelist)
    if blacklist and not whitelist:
        return not in_black
    if whitelist and not blacklist:
        return in_white
    if blacklist and whitelist:
        return not in_black and in_white
    return True


def check_include_exclude(path_str, include_pat=None, exclude_pat=None):
    """Glob (or regex with an ``E@`` prefix) include/exclude check."""

    def matches(pat):
        if pat.startswith("E@"):
            return bool(re.search(pat[2:], path_str))
        return fnmatch.fnmatch(path_str, pat)

    def any_match(pats):
        if isinstance(pats, list):
            return any(matches(p) for p in pats)
        return matches(pats)

    if include_pat and exclude_pat:
        return any_match(include_pat) and not any_match(exclude_pat)
    if include_pat:
        return any_match(include_pat)
    if exclude_pat:
        return not any_match(exclude_pat)
    return True


def print_cli(msg, retries=10, step=0.01):
    """print() that ignores a broken pipe."""
    import errno
    import time

    while retries:
        try:
            try:
                print(msg)
            except UnicodeEncodeError:
                print(msg.encode("utf-8"))
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                if ("temporarily unavailable" in str(exc) or exc.errno == errno.EAGAIN) and retries:
                    time.sleep(step)
                    retries -= 1
                    continue
                raise
        break


def get_context(template, line, num_lines=5, marker=None):
    """The lines around line (1-based) of template, framed by ``---``;
    marker is appended to the line itself."""
    lines = template.splitlines()
    total = len(lines)
    if line > total:
        return template
    start = max(0, line - num_lines - 1)
    end = min(total, line + num_lines)
    at = line - start - 1
    buf = []
    if start > 0:
        buf.append("[...]")
        at += 1
    buf.extend(lines[start:end])
    if end < total:
        buf.append("[...]")
    if marker:
        buf[at] += marker
    return "---\n{}\n---".format("\n".join(buf))


def get_diff(a, b, *args, **kwargs):
    """A unified diff (as one string) of two sequences of lines."""
    import salt.utils.data

    encoding = ("utf-8", "latin-1", _system_encoding())
    return "".join(
        difflib.unified_diff(
            salt.utils.data.decode_list(a, encoding=encoding),
            salt.utils.data.decode_list(b, encoding=encoding),
            *args,
            **kwargs
        )
    )


def camel_to_snake_case(camel_input):
    """camelCase / CamelCase -> snake_case."""
    out = camel_input[0].lower()
    for i, ch in enumerate(camel_input[1:], 1):
        if ch.isupper():
            if camel_input[i - 1].islower() or (
                i != len(camel_input) - 1 and camel_input[i + 1].islower()
            ):
                out += "_"
        out += ch.lower()
    return out


def snake_to_camel_case(snake_input, uppercamel=False):
    """snake_case -> camelCase (CamelCase with uppercamel=True)."""
    words = snake_input.split("_")
    if uppercamel:
        words[0] = words[0].capitalize()
    return words[0] + "".join(w.capitalize() for w in words[1:])
