"""
salt.utils.yaml for brine: load and dump YAML without PyYAML.

Salt wraps PyYAML; brine's worker may run where PyYAML is not installed,
so this module carries a small YAML implementation of its own, written for
brine, and uses it always (also where PyYAML exists), so that a custom
module behaves the same on every machine.

What it loads (``safe_load``/``load``), with Salt's SaltYamlSafeLoader
semantics:

* block mappings and sequences, flow ``[...]``/``{...}`` collections,
  plain, single- and double-quoted scalars (multi-line ones folded),
  literal ``|`` and folded ``>`` block scalars with chomping/indentation
  indicators, comments, a leading ``---`` and a trailing ``...``;
* anchors (``&a``), aliases (``*a``) and merge keys (``<<``);
* explicit ``? key`` entries (as PyYAML writes keys it cannot write plain,
  such as multi-line strings); a key must still be a scalar;
* the tags ``!!str !!int !!float !!bool !!null !!map !!seq`` and ``!``;
* YAML 1.1 scalar resolution as PyYAML's SafeLoader, with Salt's changes:
  ``yes/no/on/off/true/false`` (any of the three casings) are bools,
  ``~``/``null``/empty are None, ``0x``/``0b``/sexagesimal ints, and an
  int with leading zeros is read as *decimal* (Salt: ``010`` is 10), floats
  need a dot (``1e3`` stays a string), timestamps stay strings;
* a key given twice raises ``ConstructorError`` ("found conflicting ID"),
  as Salt's loader does.

What it refuses, with a ``YAMLError`` whose message says brine's YAML does
not support it: more than one document in a stream, collections as
mapping keys, other tags (``!!python/...``, ``!!binary``, ``!!set``, ``!!omap``, custom
``!tags``), and directives (``%YAML``).

What it dumps (``safe_dump``/``dump``), as Salt's SafeOrderedDumper with
``default_flow_style=None``: collections of scalars in flow style
(``[1, 2]``, ``{a: 1}``), others in block style with sequences in mappings
not indented; dict keys sorted (``sort_keys=True``), OrderedDict order
kept; strings that would read back as another type quoted; objects of
other types written as ``NULL`` (Salt's undefined representer).  Options
honoured: ``default_flow_style``, ``indent``, ``sort_keys``,
``explicit_start``, ``explicit_end``, ``allow_unicode``, ``encoding``;
``width`` is ignored (no line folding) and multi-line strings are written
double-quoted with ``\\n`` escapes (PyYAML folds them into a single-quoted
multi-line scalar; both read back the same).
"""

import base64
import datetime
import math
import re
import types
from collections import OrderedDict as _StdOrderedDict
from collections.abc import Mapping

__all__ = [
    "YAMLError",
    "MarkedYAMLError",
    "ScannerError",
    "ParserError",
    "ConstructorError",
    "RepresenterError",
    "SaltYamlSafeLoader",
    "SafeOrderedDumper",
    "OrderedDumper",
    "IndentedSafeOrderedDumper",
    "get_dumper",
    "load",
    "safe_load",
    "dump",
    "safe_dump",
    "parser",
    "scanner",
    "constructor",
]


# ------------------------------------------------------------------ errors


class YAMLError(Exception):
    """Base of the YAML errors (yaml.YAMLError)."""


class MarkedYAMLError(YAMLError):
    """An error at a position of the input."""

    def __init__(self, context=None, context_mark=None, problem=None, problem_mark=None, note=None):
        super().__init__(context, context_mark, problem, problem_mark, note)
        self.context = context
        self.context_mark = context_mark
        self.problem = problem
        self.problem_mark = problem_mark
        self.note = note

    def __str__(self):
        lines = []
        if self.context is not None:
            lines.append(self.context)
        if self.context_mark is not None and (
            self.problem is None or self.problem_mark is None or self.context_mark != self.problem_mark
        ):
            lines.append(str(self.context_mark))
        if self.problem is not None:
            lines.append(self.problem)
        if self.problem_mark is not None:
            lines.append(str(self.problem_mark))
        if self.note is not None:
            lines.append(self.note)
        return "\n".join(lines)


class ScannerError(MarkedYAMLError):
    """A token-level error (yaml.scanner.ScannerError)."""


class ParserError(MarkedYAMLError):
    """A structure-level error (yaml.parser.ParserError)."""


class ConstructorError(MarkedYAMLError):
    """An error building Python objects (yaml.constructor.ConstructorError)."""


class RepresenterError(YAMLError):
    """An object that cannot be dumped."""


class UnsupportedYAMLError(YAMLError):
    """YAML that brine's small implementation does not handle."""


# PyYAML's submodules, as code reaches them through salt.utils.yaml
parser = types.SimpleNamespace(ParserError=ParserError)
scanner = types.SimpleNamespace(ScannerError=ScannerError)
constructor = types.SimpleNamespace(ConstructorError=ConstructorError)


class Mark:
    """A position in the input (1-based in its text, as PyYAML prints)."""

    def __init__(self, name, line, column):
        self.name = name
        self.line = line
        self.column = column

    def __str__(self):
        return '  in "{}", line {}, column {}'.format(self.name, self.line + 1, self.column + 1)

    def __eq__(self, other):
        return isinstance(other, Mark) and (self.line, self.column) == (other.line, other.column)


# -------------------------------------------------------------- resolution

_NULL = {"", "~", "null", "Null", "NULL"}
_TRUE = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"}
_FALSE = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"}
_INT_RE = re.compile(
    r"""^(?:[-+]?0b[0-1_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
    re.X,
)
_FLOAT_RE = re.compile(
    r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN))$""",
    re.X,
)


def _construct_int(value):
    value = value.replace("_", "")
    sign = 1
    if value[:1] == "-":
        sign = -1
    if value[:1] in "+-":
        value = value[1:]
    if value == "0":
        return 0
    if value.startswith("0b"):
        return sign * int(value[2:], 2)
    if value.startswith("0x"):
        return sign * int(value[2:], 16)
    if value[:1] == "0":
        return sign * int(value, 8)
    if ":" in value:
        digits = [int(p) for p in value.split(":")]
        digits.reverse()
        base, out = 1, 0
        for d in digits:
            out += d * base
            base *= 60
        return sign * out
    return sign * int(value)


def _construct_float(value):
    value = value.replace("_", "").lower()
    sign = 1
    if value[:1] == "-":
        sign = -1
    if value[:1] in "+-":
        value = value[1:]
    if value == ".inf":
        return sign * math.inf
    if value == ".nan":
        return math.nan
    if ":" in value:
        digits = [float(p) for p in value.split(":")]
        digits.reverse()
        base, out = 1, 0.0
        for d in digits:
            out += d * base
            base *= 60
        return sign * out
    return sign * float(value)


def _salt_int(value):
    # Salt's SaltYamlSafeLoader: a leading zero does not make an octal
    # (unless signed, where PyYAML's rule still applies)
    if value != "0" and value.startswith("0") and not value.startswith(("0b", "0x")):
        value = value.lstrip("0") or "0"
    return _construct_int(value)


def _resolve_plain(value):
    """The Python value of a plain (unquoted) scalar."""
    if value in _NULL:
        return None
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    if _INT_RE.match(value):
        return _salt_int(value)
    if _FLOAT_RE.match(value):
        return _construct_float(value)
    return value


_TIMESTAMP_RE = re.compile(
    r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?
    (?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?
    (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
    re.X,
)


def _resolves_to_non_str(value):
    """True if value written plain would load as something other than
    this very string."""
    if value in _NULL or value in _TRUE or value in _FALSE:
        return True
    if value == "<<" or value == "=":
        return True
    # timestamps load as strings in Salt, but PyYAML's dumper quotes them
    # (other loaders read dates), so brine does too
    return bool(_INT_RE.match(value) or _FLOAT_RE.match(value) or _TIMESTAMP_RE.match(value))


# ------------------------------------------------------------------ loader

_MERGE = object()


class _Alias:
    pass


class _Loader:
    def __init__(self, text, name="<unicode string>", dictclass=dict):
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if text.startswith("\ufeff"):
            text = text[1:]
        self.s = text
        self.n = len(text)
        self.i = 0
        self.name = name
        self.anchors = {}
        self.dictclass = dictclass

    # -- positions and errors

    def mark(self, i=None):
        i = self.i if i is None else i
        line = self.s.count("\n", 0, i)
        col = i - (self.s.rfind("\n", 0, i) + 1)
        return Mark(self.name, line, col)

    def col(self, i=None):
        i = self.i if i is None else i
        return i - (self.s.rfind("\n", 0, i) + 1)

    def fail(self, cls, problem, context=None, i=None):
        raise cls(context, None, problem, self.mark(i))

    def unsupported(self, what):
        raise UnsupportedYAMLError(
            "brine's YAML loader does not support {}{}".format(what, str(self.mark()))
        )

    def peek(self, k=0):
        j = self.i + k
        return self.s[j] if j < self.n else ""

    def at_end(self):
        return self.i >= self.n

    def eol(self, i=None):
        i = self.i if i is None else i
        return i >= self.n or self.s[i] == "\n"

    def ws_after(self, i):
        """True if position i is a space, tab, line end or input end."""
        return i >= self.n or self.s[i] in " \t\n"

    def skip_inline(self):
        while self.i < self.n and self.s[self.i] in " \t":
            self.i += 1

    def skip_comment(self):
        if self.peek() == "#":
            while self.i < self.n and self.s[self.i] != "\n":
                self.i += 1

    def skip_blank(self):
        """Skips spaces, comments and line breaks."""
        while self.i < self.n:
            c = self.s[self.i]
            if c in " \t\n":
                self.i += 1
            elif c == "#":
                self.skip_comment()
            else:
                break

    def at_doc_marker(self, marker=None):
        if self.col() != 0:
            return False
        for m in (marker,) if marker else ("---", "..."):
            if self.s.startswith(m, self.i) and self.ws_after(self.i + 3):
                return True
        return False

    def line_end_comment(self):
        """After a value on a line: only spaces and a comment may follow."""
        self.skip_inline()
        self.skip_comment()
        if not self.eol():
            self.fail(ParserError, "expected <block end>, but found {!r}".format(self.peek()))

    # -- document

    def load(self):
        self.skip_blank()
        while self.peek() == "%" and self.col() == 0:
            self.unsupported("directives (%YAML, %TAG)")
        if self.at_doc_marker("---"):
            self.i += 3
        value = self.value(-1, root=True)
        self.skip_blank()
        if self.at_doc_marker("..."):
            self.i += 3
            self.skip_blank()
        if not self.at_end():
            if self.at_doc_marker("---"):
                self.unsupported("more than one document in a stream")
            self.fail(ParserError, "expected '<document start>', but found {!r}".format(self.peek()))
        return value

    # -- node properties

    def props(self):
        anchor = tag = None
        while True:
            c = self.peek()
            if c == "&":
                j = self.i + 1
                while j < self.n and self.s[j] not in " \t\n,[]{}":
                    j += 1
                anchor = self.s[self.i + 1 : j]
                if not anchor:
                    self.fail(ScannerError, "expected alphabetic or numeric character, but found ' '",
                              "while scanning an anchor")
                self.i = j
                self.skip_inline()
            elif c == "!":
                j = self.i + 1
                while j < self.n and self.s[j] not in " \t\n,[]{}":
                    j += 1
                tag = self.s[self.i : j]
                if tag not in ("!", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq"):
                    self.unsupported("the tag {}".format(tag))
                self.i = j
                self.skip_inline()
            else:
                return anchor, tag

    def finish(self, value, anchor, tag, plain=None):
        """Applies a tag to a constructed value and records its anchor."""
        if tag is not None and plain is not None:
            value = self.tagged_scalar(tag, plain)
        elif tag in ("!!map",) and not isinstance(value, Mapping):
            self.fail(ConstructorError, "expected a mapping node, but found {}".format(type(value).__name__))
        elif tag in ("!!seq",) and not isinstance(value, list):
            self.fail(ConstructorError, "expected a sequence node, but found {}".format(type(value).__name__))
        elif tag in ("!!int", "!!float", "!!bool", "!!null") and plain is None and not isinstance(value, str):
            self.fail(ConstructorError, "expected a scalar node for {}".format(tag))
        elif tag in ("!!int", "!!float", "!!bool", "!!null") and isinstance(value, str):
            value = self.tagged_scalar(tag, value)
        if anchor is not None:
            self.anchors[anchor] = value
        return value

    def tagged_scalar(self, tag, text):
        if tag == "!":
            # the non-specific tag: resolved as untagged, as PyYAML does
            return _resolve_plain(text)
        if tag == "!!str":
            return text
        try:
            if tag == "!!int":
                return _salt_int(text)
            if tag == "!!float":
                return _construct_float(text)
        except ValueError:
            self.fail(ConstructorError, "invalid value for {}: {!r}".format(tag, text))
        if tag == "!!bool":
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
            self.fail(ConstructorError, "invalid boolean {!r}".format(text))
        if tag == "!!null":
            return None
        self.fail(ConstructorError, "expected a scalar for {}".format(tag))

    # -- block structure

    def is_seq_entry(self, i=None):
        i = self.i if i is None else i
        return i < self.n and self.s[i] == "-" and self.ws_after(i + 1)

    def key_end(self, i):
        """If a block mapping key starts at i on this line, the index of its
        ':'; else None."""
        s, n = self.s, self.n
        if i >= n:
            return None
        c = s[i]
        if c == "?" and self.ws_after(i + 1):
            return -1  # an explicit key ('? key' then ': value')
        if c in "'\"":
            j = self.skip_quoted(i)
            if j is None:
                return None
            while j < n and s[j] in " \t":
                j += 1
            if j < n and s[j] == ":" and self.ws_after(j + 1):
                return j
            return None
        if c in "[{":
            depth, j = 0, i
            while j < n and s[j] != "\n":
                if s[j] in "[{":
                    depth += 1
                elif s[j] in "]}":
                    depth -= 1
                    if depth == 0:
                        j += 1
                        break
                j += 1
            while j < n and s[j] in " \t":
                j += 1
            if j < n and s[j] == ":" and self.ws_after(j + 1):
                self.i = i
                self.unsupported("collections as mapping keys")
            return None
        if c in "#|>%@`" or (c in "-" and self.ws_after(i + 1)):
            return None
        j = i
        while j < n and s[j] != "\n":
            if s[j] == ":" and self.ws_after(j + 1):
                return j
            if s[j] == "#" and s[j - 1] in " \t":
                return None
            j += 1
        return None

    def skip_quoted(self, i):
        """Index after the quoted scalar starting at i on the same logical
        line (None if it does not close on this line)."""
        s, n, q = self.s, self.n, self.s[i]
        j = i + 1
        while j < n:
            c = s[j]
            if c == "\n":
                return None
            if q == "'" and c == "'":
                if j + 1 < n and s[j + 1] == "'":
                    j += 2
                    continue
                return j + 1
            if q == '"':
                if c == "\\":
                    j += 2
                    continue
                if c == '"':
                    return j + 1
            j += 1
        return None

    def value(self, indent, root=False, in_seq=False):
        """The node after 'key:', after '- ', or at the document root;
        indent is the parent's column."""
        self.skip_inline()
        anchor, tag = self.props()
        self.skip_comment()
        if self.eol():
            # the node is on the following lines (or empty)
            self.skip_blank()
            if not (self.at_end() or self.at_doc_marker()):
                c = self.col()
                if c > indent or (c == indent and not root and not in_seq and self.is_seq_entry()):
                    return self.node_at(c, indent, anchor, tag, new_line=True)
            # an empty node
            if tag is not None and tag not in ("!!map", "!!seq"):
                return self.finish(self.tagged_scalar(tag, ""), anchor, None)
            return self.finish(None, anchor, None)
        return self.node_at(self.col(), indent, anchor, tag, new_line=root or in_seq)

    def node_at(self, col, indent, anchor, tag, new_line):
        """A node whose first character is at the current position (column
        col); new_line tells whether a block collection may start here."""
        c = self.peek()
        if c == "*":
            j = self.i + 1
            while j < self.n and self.s[j] not in " \t\n,[]{}":
                j += 1
            name = self.s[self.i + 1 : j]
            if name not in self.anchors:
                self.fail(ConstructorError, "found undefined alias {!r}".format(name))
            self.i = j
            value = self.anchors[name]
            if self.key_end_here_after_alias():
                self.unsupported("aliases as mapping keys")
            self.line_end_comment()
            return value
        if new_line and self.is_seq_entry():
            return self.finish(self.block_seq(col), anchor, tag)
        if new_line and self.key_end(self.i) is not None:
            return self.finish(self.block_map(col), anchor, tag)
        if c in "|>":
            return self.finish(self.block_scalar(indent), anchor, None) if tag is None else \
                self.finish(None, anchor, tag, plain=self.block_scalar(indent))
        if c in "[{":
            value = self.flow_node(indent)
            self.line_end_comment()
            return self.finish(value, anchor, tag)
        if c in "'\"":
            text = self.quoted(indent)
            self.line_end_comment_or_key_error()
            return self.finish(text if tag is None else None, anchor, tag, plain=text if tag else None)
        if c in "%@`":
            self.fail(ScannerError, "found character {!r} that cannot start any token".format(c),
                      "while scanning for the next token")
        if c == "-" and self.ws_after(self.i + 1):
            self.fail(ScannerError, "sequence entries are not allowed here")
        text = self.plain(indent, flow=False)
        if self.peek() == ":" and self.ws_after(self.i + 1):
            self.fail(ScannerError, "mapping values are not allowed here")
        if tag is not None:
            return self.finish(None, anchor, tag, plain=text)
        return self.finish(_resolve_plain(text), anchor, None)

    def key_end_here_after_alias(self):
        j = self.i
        while j < self.n and self.s[j] in " \t":
            j += 1
        return j < self.n and self.s[j] == ":" and self.ws_after(j + 1)

    def line_end_comment_or_key_error(self):
        self.skip_inline()
        if self.peek() == ":" and self.ws_after(self.i + 1):
            self.fail(ScannerError, "mapping values are not allowed here")
        self.line_end_comment()

    def block_seq(self, col):
        out = []
        while True:
            self.i += 1  # the '-'
            out.append(self.value(col, in_seq=True))
            self.skip_blank()
            if self.at_end() or self.at_doc_marker():
                break
            c = self.col()
            if c == col and self.is_seq_entry():
                continue
            if c > col:
                self.fail(ParserError, "expected <block end>, but found {!r}".format(self.peek()),
                          "while parsing a block collection")
            break
        return out

    def block_map(self, col):
        pairs = []
        while True:
            start = self.i
            if self.key_end(self.i) == -1:
                key, value = self.explicit_entry(col)
                pairs.append((key, value, start))
            else:
                key = self.block_key()
                self.i += 1  # the ':'
                value = self.value(col)
                pairs.append((key, value, start))
            self.skip_blank()
            if self.at_end() or self.at_doc_marker():
                break
            c = self.col()
            if c == col and not self.is_seq_entry():
                if self.key_end(self.i) is None:
                    self.fail(ScannerError, "could not find expected ':'", "while scanning a simple key")
                continue
            if c > col:
                self.fail(ParserError, "expected <block end>, but found {!r}".format(self.peek()),
                          "while parsing a block mapping")
            break
        return self.build_map(pairs)

    def explicit_entry(self, col):
        """'? key' (then ': value' on a line at the same column)."""
        self.i += 1  # the '?'
        key = self.value(col, in_seq=True)
        self.skip_blank()
        value = None
        if not self.at_end() and self.col() == col and self.peek() == ":" and self.ws_after(self.i + 1):
            self.i += 1
            value = self.value(col, in_seq=True)
        return key, value

    def block_key(self):
        end = self.key_end(self.i)
        c = self.peek()
        if c in "'\"":
            key = self.quoted(-1)
            self.skip_inline()
        else:
            text = self.s[self.i : end].rstrip(" \t")
            self.i = end
            if text == "<<":
                key = _MERGE
            else:
                key = _resolve_plain(text)
        if self.peek() != ":":
            self.fail(ScannerError, "could not find expected ':'")
        return key

    def build_map(self, pairs):
        """Salt's construct_mapping with flatten_mapping: merged pairs go
        first, minus the keys given explicitly; any repeated key raises."""
        explicit = [(k, v, at) for k, v, at in pairs if k is not _MERGE]
        merged = []
        for k, v, at in pairs:
            if k is not _MERGE:
                continue
            if isinstance(v, Mapping):
                merged.extend((mk, mv, at) for mk, mv in v.items())
            elif isinstance(v, list):
                subs = []
                for sub in v:
                    if not isinstance(sub, Mapping):
                        self.fail(ConstructorError, "expected a mapping for merging, but found {}".format(
                            type(sub).__name__), "while constructing a mapping", at)
                    subs.append(list(sub.items()))
                subs.reverse()
                for items in subs:
                    merged.extend((mk, mv, at) for mk, mv in items)
            else:
                self.fail(ConstructorError,
                          "expected a mapping or list of mappings for merging, but found {}".format(
                              type(v).__name__), "while constructing a mapping", at)
        names = [k for k, _, _ in explicit]
        merged = [m for m in merged if m[0] not in names]
        out = self.dictclass()
        for k, v, at in merged + explicit:
            try:
                hash(k)
            except TypeError:
                self.fail(ConstructorError, "found unacceptable key {!r}".format(k),
                          "while constructing a mapping", at)
            if k in out:
                self.fail(ConstructorError, "found conflicting ID '{}'".format(k),
                          "while constructing a mapping", at)
            out[k] = v
        return out

    # -- scalars

    def plain(self, indent, flow):
        """A plain scalar, folded over continuation lines."""
        s, n = self.s, self.n
        parts = []
        breaks = 0
        first = True
        while True:
            j = self.i
            while j < n:
                c = s[j]
                if c == "\n":
                    break
                if c == ":" and (self.ws_after(j + 1) or (flow and j + 1 < n and s[j + 1] in ",[]{}")):
                    break
                if c == "#" and j > 0 and s[j - 1] in " \t":
                    break
                if flow and c in ",[]{}":
                    break
                j += 1
            text = s[self.i : j].rstrip(" \t")
            stop = self.i + len(text)
            if text:
                if not first:
                    parts.append("\n" * (breaks - 1) if breaks > 1 else " ")
                parts.append(text)
                first = False
            self.i = stop
            # look for a continuation line
            k = stop
            while k < n and s[k] in " \t":
                k += 1
            if k >= n or s[k] != "\n":
                break
            breaks = 0
            m = k
            while m < n and s[m] == "\n":
                breaks += 1
                m += 1
                while m < n and s[m] in " \t":
                    m += 1
                if m < n and s[m] == "#":
                    break
            if m >= n or s[m] == "#":
                break
            if self.col(m) <= indent and not flow:
                break
            if not flow and self.col(m) == 0 and (
                s.startswith("---", m) or s.startswith("...", m)
            ) and self.ws_after(m + 3):
                break
            if flow and s[m] in ",]}:":
                self.i = m
                break
            if not flow and s[m] == "-" and self.ws_after(m + 1) and self.col(m) <= indent + 1:
                break
            self.i = m
        return "".join(parts)

    def quoted(self, indent):
        s, n = self.s, self.n
        q = s[self.i]
        self.i += 1
        out = []
        start = self.i - 1
        while True:
            if self.i >= n:
                self.fail(ScannerError, "found unexpected end of stream",
                          "while scanning a quoted scalar", start)
            c = s[self.i]
            if q == "'" and c == "'":
                if self.peek(1) == "'":
                    out.append("'")
                    self.i += 2
                    continue
                self.i += 1
                return "".join(out)
            if q == '"' and c == '"':
                self.i += 1
                return "".join(out)
            if q == '"' and c == "\\":
                self.i += 1
                e = self.peek()
                if e == "\n":
                    # escaped line break: joined without a space
                    self.i += 1
                    while self.peek() in (" ", "\t"):
                        self.i += 1
                    continue
                out.append(self.escape(e))
                continue
            if c in " \t\n":
                # fold white space and line breaks
                j = self.i
                while j < n and s[j] in " \t":
                    j += 1
                if j < n and s[j] == "\n":
                    breaks = 0
                    while j < n and s[j] in " \t\n":
                        if s[j] == "\n":
                            breaks += 1
                        j += 1
                    out.append("\n" * (breaks - 1) if breaks > 1 else " ")
                    self.i = j
                    continue
                out.append(s[self.i : j])
                self.i = j
                continue
            out.append(c)
            self.i += 1

    _ESCAPES = {
        "0": "\0", "a": "\x07", "b": "\x08", "t": "\t", "\t": "\t", "n": "\n",
        "v": "\x0b", "f": "\x0c", "r": "\r", "e": "\x1b", " ": " ", '"': '"',
        "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029",
    }

    def escape(self, e):
        if e in self._ESCAPES:
            self.i += 1
            return self._ESCAPES[e]
        size = {"x": 2, "u": 4, "U": 8}.get(e)
        if size:
            digits = self.s[self.i + 1 : self.i + 1 + size]
            if len(digits) != size or not all(ch in "0123456789abcdefABCDEF" for ch in digits):
                self.fail(ScannerError, "expected escape sequence of {} hexadecimal numbers".format(size),
                          "while scanning a double-quoted scalar")
            self.i += 1 + size
            return chr(int(digits, 16))
        self.fail(ScannerError, "found unknown escape character {!r}".format(e),
                  "while scanning a double-quoted scalar")

    def block_scalar(self, indent):
        s, n = self.s, self.n
        style = s[self.i]
        self.i += 1
        chomp = None
        increment = None
        for _ in range(2):
            c = self.peek()
            if c in "+-" and chomp is None:
                chomp = c
                self.i += 1
            elif c.isdigit() and increment is None:
                if c == "0":
                    self.fail(ScannerError, "expected indentation indicator in the range 1-9, but found 0",
                              "while scanning a block scalar")
                increment = int(c)
                self.i += 1
        self.skip_inline()
        self.skip_comment()
        if not self.eol():
            self.fail(ScannerError, "expected a comment or a line break, but found {!r}".format(self.peek()),
                      "while scanning a block scalar")
        if self.i < n:
            self.i += 1
        min_indent = max(indent + 1, 1)
        # gather the lines of the block
        lines = []
        pos = self.i
        content_indent = None if increment is None else min_indent + increment - 1
        while pos < n:
            end = s.find("\n", pos)
            if end < 0:
                end = n
            line = s[pos:end]
            stripped = line.lstrip(" ")
            lead = len(line) - len(stripped)
            if stripped == "":
                lines.append(line)
            else:
                if content_indent is None:
                    content_indent = max(lead, min_indent)
                    for blank in lines:
                        if len(blank) > content_indent:
                            self.fail(ScannerError,
                                      "leading empty lines are more indented than the content",
                                      "while scanning a block scalar")
                if lead < content_indent:
                    break
                lines.append(line)
            pos = end + 1 if end < n else n
            if end >= n:
                break
        if content_indent is None:
            content_indent = min_indent
        # where the block ends: at the start of the first line not in it
        consumed = 0
        for line in lines:
            consumed += len(line) + 1
        self.i = min(self.i + consumed, n)
        # the text of each line
        texts = [line[content_indent:] if len(line) > content_indent else
                 ("" if line.strip(" ") == "" else line[content_indent:]) for line in lines]
        # the last content line
        last = -1
        for idx, t in enumerate(texts):
            if t != "" or len(lines[idx]) > content_indent:
                last = idx
        ended_with_break = self.i <= n and (self.i == n and s.endswith("\n") or self.i < n)
        trailing = len(texts) - 1 - last if last >= 0 else len(texts)
        body_lines = texts[: last + 1]
        if style == "|":
            body = "\n".join(body_lines)
        else:
            body = self.fold(body_lines)
        if last >= 0:
            # the line break of the last content line (if it has one)
            final_break = 1 if (last < len(texts) - 1 or ended_with_break) else 0
        else:
            final_break = 0
        if chomp == "-":
            return body
        if chomp == "+":
            return body + "\n" * (final_break + trailing)
        return body + ("\n" if final_break and body_lines else "")

    @staticmethod
    def fold(lines):
        out = []
        prev = None
        pending = 0
        for text in lines:
            if text == "":
                pending += 1
                continue
            more = text[0] in " \t"
            if prev is None:
                out.append("\n" * pending)
            elif prev == "normal" and not more:
                out.append(" " if pending == 0 else "\n" * pending)
            else:
                out.append("\n" * (pending + 1))
            out.append(text)
            prev = "more" if more else "normal"
            pending = 0
        return "".join(out)

    # -- flow collections

    def skip_flow_blank(self):
        while self.i < self.n:
            c = self.s[self.i]
            if c in " \t\n":
                self.i += 1
            elif c == "#" and (self.i == 0 or self.s[self.i - 1] in " \t\n"):
                self.skip_comment()
            else:
                break

    def flow_node(self, indent):
        self.skip_flow_blank()
        anchor, tag = self.props()
        self.skip_flow_blank()
        c = self.peek()
        if c == "[":
            return self.finish(self.flow_seq(indent), anchor, tag)
        if c == "{":
            return self.finish(self.flow_map(indent), anchor, tag)
        if c in "'\"":
            text = self.quoted(indent)
            return self.finish(text if tag is None else None, anchor, tag, plain=text if tag else None)
        if c == "*":
            j = self.i + 1
            while j < self.n and self.s[j] not in " \t\n,[]{}":
                j += 1
            name = self.s[self.i + 1 : j]
            if name not in self.anchors:
                self.fail(ConstructorError, "found undefined alias {!r}".format(name))
            self.i = j
            return self.anchors[name]
        if c == "" :
            self.fail(ParserError, "found unexpected end of stream", "while parsing a flow node")
        if c in ",]}":
            # an empty node
            return self.finish(None, anchor, None) if tag is None else \
                self.finish(None, anchor, tag, plain="")
        text = self.plain(indent, flow=True)
        if tag is not None:
            return self.finish(None, anchor, tag, plain=text)
        if text == "<<":
            return _MERGE
        return self.finish(_resolve_plain(text), anchor, None)

    def flow_seq(self, indent):
        start = self.i
        self.i += 1
        out = []
        while True:
            self.skip_flow_blank()
            c = self.peek()
            if c == "]":
                self.i += 1
                return out
            if c == "":
                self.fail(ParserError, "expected ',' or ']', but got end of stream",
                          "while parsing a flow sequence", start)
            item = self.flow_node(indent)
            self.skip_flow_blank()
            if self.peek() == ":":
                # a single-pair mapping inside a sequence: [a: 1]
                self.i += 1
                val = self.flow_node(indent)
                item = self.build_map([(item, val, start)])
                self.skip_flow_blank()
            out.append(item)
            c = self.peek()
            if c == ",":
                self.i += 1
            elif c != "]":
                self.fail(ParserError, "expected ',' or ']', but got {!r}".format(c),
                          "while parsing a flow sequence", start)

    def flow_map(self, indent):
        start = self.i
        self.i += 1
        pairs = []
        while True:
            self.skip_flow_blank()
            c = self.peek()
            if c == "}":
                self.i += 1
                return self.build_map(pairs)
            if c == "":
                self.fail(ParserError, "expected ',' or '}', but got end of stream",
                          "while parsing a flow mapping", start)
            if c == "?" and self.ws_after(self.i + 1):
                self.i += 1  # an explicit key
            at = self.i
            key = self.flow_node(indent)
            self.skip_flow_blank()
            if self.peek() == ":":
                self.i += 1
                val = self.flow_node(indent)
                self.skip_flow_blank()
            else:
                val = None
            pairs.append((key, val, at))
            c = self.peek()
            if c == ",":
                self.i += 1
            elif c != "}":
                self.fail(ParserError, "expected ',' or '}', but got {!r}".format(c),
                          "while parsing a flow mapping", start)


class SaltYamlSafeLoader:
    """Stands for Salt's loader class: safe_load(stream, Loader=...) with
    it (or any Loader argument) uses brine's loader.  dictclass (for
    instance OrderedDict) is the class mappings are built with."""

    def __init__(self, stream, dictclass=dict):
        self.stream = stream
        self.dictclass = dictclass

    def get_single_data(self):
        return _load(self.stream, self.dictclass)


def _read(stream):
    if hasattr(stream, "read"):
        data = stream.read()
        name = getattr(stream, "name", "<file>")
    else:
        data = stream
        name = "<unicode string>" if isinstance(stream, str) else "<byte string>"
    if isinstance(data, (bytes, bytearray)):
        data = bytes(data).decode("utf-8")
    return data, name


def _load(stream, dictclass=dict):
    data, name = _read(stream)
    return _Loader(data, name=name, dictclass=dictclass).load()


def load(stream, Loader=SaltYamlSafeLoader):
    """Loads one YAML document (str, bytes or a file object) as Salt's
    safe loader does.  Loader is accepted for compatibility."""
    return _load(stream)


def safe_load(stream, Loader=SaltYamlSafeLoader):
    """The same as load()."""
    return _load(stream)


# ------------------------------------------------------------------ dumper

_PRINTABLE = re.compile("[\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _is_printable(ch, allow_unicode):
    if ch in "\n\t":
        return False
    if not allow_unicode and ord(ch) > 0x7E:
        return False
    return bool(_PRINTABLE.match(ch)) and ch not in "\x85\u2028\u2029\ufeff"


def _plain_ok(value, flow, allow_unicode):
    if not value or value != value.strip(" "):
        return False
    if _resolves_to_non_str(value):
        return False
    if value.startswith(("---", "...")):
        return False
    if any(not _is_printable(ch, allow_unicode) for ch in value):
        return False
    first = value[0]
    if first in "#,[]{}&*!|>'\"%@`":
        return False
    if first in "-?:" and (len(value) == 1 or value[1] == " "):
        return False
    if flow and first in "?:":
        return False
    for idx, ch in enumerate(value):
        if flow and ch in ",[]{}":
            return False
        if ch == ":" and (idx + 1 == len(value) or value[idx + 1] == " " or flow):
            return False
        if ch == "#" and idx > 0 and value[idx - 1] == " ":
            return False
    return True


def _double_quote(value, allow_unicode):
    out = ['"']
    named = {"\0": "0", "\x07": "a", "\x08": "b", "\t": "t", "\n": "n", "\x0b": "v",
             "\x0c": "f", "\r": "r", "\x1b": "e", '"': '"', "\\": "\\", "\x85": "N",
             "\xa0": "_", "\u2028": "L", "\u2029": "P"}
    for ch in value:
        if ch in named:
            out.append("\\" + named[ch])
        elif _is_printable(ch, allow_unicode) or (allow_unicode and ord(ch) > 0x7E and ch.isprintable()):
            out.append(ch)
        elif ord(ch) <= 0xFF:
            out.append("\\x%02X" % ord(ch))
        elif ord(ch) <= 0xFFFF:
            out.append("\\u%04X" % ord(ch))
        else:
            out.append("\\U%08X" % ord(ch))
    out.append('"')
    return "".join(out)


class SafeOrderedDumper:
    """Marker for Salt's dumper class (Dumper= arguments are accepted)."""


class OrderedDumper(SafeOrderedDumper):
    """Marker for Salt's non-safe dumper (brine writes the same)."""


class IndentedSafeOrderedDumper(SafeOrderedDumper):
    """Salt's dumper that also indents sequences inside mappings."""


def get_dumper(dumper_name):
    """The dumper class of that name (as Salt's get_dumper), or None."""
    return {
        "OrderedDumper": OrderedDumper,
        "SafeOrderedDumper": SafeOrderedDumper,
        "IndentedSafeOrderedDumper": IndentedSafeOrderedDumper,
    }.get(dumper_name)


class _Dumper:
    def __init__(self, default_flow_style=None, indent=2, sort_keys=True, allow_unicode=True,
                 indent_sequences=False):
        self.indent_sequences = indent_sequences
        self.dfs = default_flow_style
        self.indent = indent if isinstance(indent, int) and 1 < indent < 10 else 2
        self.sort_keys = sort_keys
        self.allow_unicode = allow_unicode

    # -- classify

    def kind(self, data):
        if data is None or isinstance(data, (bool, int, float, str, bytes, datetime.date)):
            return "scalar"
        if isinstance(data, Mapping):
            return "map"
        if isinstance(data, list):
            return "seq"
        if isinstance(data, (set, frozenset)):
            return "set"
        return "scalar"  # written as NULL, as Salt's SafeOrderedDumper does

    def items(self, data):
        pairs = list(data.items())
        if self.sort_keys and type(data) not in (_StdOrderedDict,) and not isinstance(data, _StdOrderedDict):
            try:
                pairs = sorted(pairs, key=lambda kv: kv[0])
            except TypeError:
                pass
        return pairs

    def flow_style(self, data):
        """Whether a collection is written in flow style."""
        if self.kind(data) == "set":
            return True
        values = list(data.values()) if isinstance(data, Mapping) else list(data)
        if not values:
            return True
        if self.dfs is not None:
            return bool(self.dfs)
        if isinstance(data, Mapping):
            if any(self.kind(k) != "scalar" for k in data):
                return False
        return all(self.kind(v) == "scalar" and not isinstance(v, bytes) for v in values)

    # -- scalars

    def scalar(self, data, flow=False):
        """(text, plain?) for a scalar."""
        if data is None:
            return "null", True
        if data is True:
            return "true", True
        if data is False:
            return "false", True
        if isinstance(data, int):
            return str(data), True
        if isinstance(data, float):
            if data != data:
                return ".nan", True
            if data == math.inf:
                return ".inf", True
            if data == -math.inf:
                return "-.inf", True
            text = repr(data).lower()
            if "." not in text and "e" in text:
                text = text.replace("e", ".0e", 1)
            return text, True
        if isinstance(data, datetime.datetime):
            return data.isoformat(" "), True
        if isinstance(data, datetime.date):
            return data.isoformat(), True
        if isinstance(data, bytes):
            return "!!binary " + _double_quote(base64.encodebytes(data).decode("ascii").replace("\n", ""), True), False
        if isinstance(data, str):
            if _plain_ok(data, flow, self.allow_unicode):
                return data, True
            if all(_is_printable(ch, self.allow_unicode) for ch in data):
                return "'" + data.replace("'", "''") + "'", False
            return _double_quote(data, self.allow_unicode), False
        return "NULL", True

    # -- flow

    def flow(self, data):
        kind = self.kind(data)
        if kind == "map":
            inner = []
            for k, v in self.items(data):
                inner.append("{}: {}".format(self.flow(k), self.flow(v)))
            return "{" + ", ".join(inner) + "}"
        if kind == "seq":
            return "[" + ", ".join(self.flow(v) for v in data) + "]"
        if kind == "set":
            try:
                members = sorted(data)
            except TypeError:
                members = list(data)
            return "!!set {" + ", ".join("{}: null".format(self.flow(m)) for m in members) + "}"
        return self.scalar(data, flow=True)[0]

    # -- block

    def key(self, k):
        if self.kind(k) != "scalar":
            raise RepresenterError("brine's YAML dumper does not write collections as mapping keys")
        return self.scalar(k)[0]

    def block(self, data, level, out, lead):
        """Appends lines for data; lead is the text already on the current
        line ('' when the node starts on a fresh line at column level)."""
        kind = self.kind(data)
        if kind == "scalar" or self.flow_style(data):
            text = self.flow(data) if kind != "scalar" else self.scalar(data)[0]
            out.append(lead + text)
            return
        pad = " " * level
        if kind == "seq":
            first = True
            for item in data:
                inline = self.kind(item) == "scalar" or self.flow_style(item)
                gap = " " if inline else " " * (self.indent - 1)
                prefix = (lead if first else pad) + "-" + gap
                first = False
                self.block(item, level + self.indent, out, prefix)
            return
        first = True
        for k, v in self.items(data):
            prefix = (lead if first else pad) + self.key(k) + ":"
            first = False
            vkind = self.kind(v)
            if vkind == "scalar" or self.flow_style(v):
                self.block(v, level, out, prefix + " ")
            elif vkind == "seq" and not self.indent_sequences:
                out.append(prefix)
                self.block(v, level, out, pad)
            else:
                out.append(prefix)
                self.block(v, level + self.indent, out, " " * (level + self.indent))

    def document(self, data, explicit_start=False, explicit_end=False):
        out = []
        if explicit_start:
            out.append("---")
        kind = self.kind(data)
        if kind == "scalar":
            text, plain = self.scalar(data)
            if explicit_start:
                out[-1] = "--- " + text
            else:
                out.append(text)
            if plain and not explicit_end:
                out.append("...")
        else:
            if explicit_start and self.flow_style(data):
                out[-1] = "--- " + self.flow(data)
            else:
                self.block(data, 0, out, "")
        if explicit_end:
            out.append("...")
        return "\n".join(out) + "\n"


def safe_dump(data, stream=None, **kwargs):
    """YAML text of data (see the module docstring), written to stream
    when given (then None is returned)."""
    kwargs.setdefault("allow_unicode", True)
    kwargs.setdefault("default_flow_style", None)
    dumper_class = kwargs.pop("Dumper", None)
    dumper = _Dumper(
        indent_sequences=isinstance(dumper_class, type) and issubclass(dumper_class, IndentedSafeOrderedDumper),
        default_flow_style=kwargs.pop("default_flow_style"),
        indent=kwargs.pop("indent", 2),
        sort_keys=kwargs.pop("sort_keys", True),
        allow_unicode=kwargs.pop("allow_unicode"),
    )
    text = dumper.document(
        data,
        explicit_start=kwargs.pop("explicit_start", False),
        explicit_end=kwargs.pop("explicit_end", False),
    )
    encoding = kwargs.pop("encoding", None)
    # width, line_break, canonical, default_style, tags, version: accepted, not honoured
    out = text.encode(encoding) if encoding else text
    if stream is None:
        return out
    stream.write(out)
    return None


def dump(data, stream=None, **kwargs):
    """Salt's dump(): here the same as safe_dump() (brine cannot write
    !!python/ objects)."""
    return safe_dump(data, stream, **kwargs)
