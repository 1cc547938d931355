"""
salt.utils.versions for brine: version comparison helpers as Salt 3006's.

* LooseVersion: distutils-style loose versions ('1.2.10' > '1.2.9',
  '2.0rc1'), with Salt's fix for mixed int/str parts (ints zero-padded
  and compared as strings when any part is a string).
* Version: PEP 440 versions (Salt subclasses packaging.version.Version;
  brine carries its own parser, as packaging may not be installed) that
  also compare with plain strings.
* version_cmp(), compare(), warn_until(), warn_until_date(),
  kwargs_warn_until().
"""

import datetime
import inspect
import logging
import numbers
import re
import sys
import warnings

import salt.version

log = logging.getLogger(__name__)


class LooseVersion:
    """A loose version: numbers and letter runs, '.' ignored."""

    component_re = re.compile(r"(\d+ | [a-z]+ | \.)", re.VERBOSE)

    def __init__(self, vstring=None):
        if vstring:
            self.parse(vstring)

    def parse(self, vstring):
        self.vstring = vstring
        parts = [p for p in self.component_re.split(vstring) if p and p != "."]
        for i, part in enumerate(parts):
            try:
                parts[i] = int(part)
            except ValueError:
                pass
        self.version = parts
        # Salt: every int part as an 8-wide zero-padded string, for
        # comparing versions that mix ints and strings
        self._str_version = [str(p).zfill(8) if isinstance(p, int) else p for p in parts]

    def __str__(self):
        return self.vstring

    def __repr__(self):
        return "LooseVersion ('{}')".format(self)

    def _cmp(self, other):
        if isinstance(other, str):
            other = LooseVersion(other)
        elif not isinstance(other, LooseVersion):
            return NotImplemented
        if all(isinstance(p, int) for p in self.version + other.version):
            mine, theirs = self.version, other.version
        else:
            mine, theirs = self._str_version, other._str_version
        if mine == theirs:
            return 0
        return -1 if mine < theirs else 1

    def __eq__(self, other):
        c = self._cmp(other)
        return c if c is NotImplemented else c == 0

    def __lt__(self, other):
        c = self._cmp(other)
        return c if c is NotImplemented else c < 0

    def __le__(self, other):
        c = self._cmp(other)
        return c if c is NotImplemented else c <= 0

    def __gt__(self, other):
        c = self._cmp(other)
        return c if c is NotImplemented else c > 0

    def __ge__(self, other):
        c = self._cmp(other)
        return c if c is NotImplemented else c >= 0

    __hash__ = None


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version."""


_PEP440 = re.compile(
    r"""
    ^\s*v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_\.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_\.]?(?P<pre_n>[0-9]+)?)?
    (?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_\.]?(?P<post_l>post|rev|r)[-_\.]?(?P<post_n2>[0-9]+)?))?
    (?P<dev>[-_\.]?(?P<dev_l>dev)[-_\.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_\.][a-z0-9]+)*))?
    \s*$
    """,
    re.VERBOSE | re.IGNORECASE,
)

_INF = float("inf")


class Version:
    """A PEP 440 version (as packaging.version.Version), comparable with
    another Version or a version string."""

    def __init__(self, version):
        m = _PEP440.match(version)
        if not m:
            raise InvalidVersion("Invalid version: '{}'".format(version))
        self.epoch = int(m.group("epoch") or 0)
        self.release = tuple(int(p) for p in m.group("release").split("."))
        pre = None
        if m.group("pre_l"):
            label = m.group("pre_l").lower()
            label = {"alpha": "a", "beta": "b", "c": "rc", "pre": "rc", "preview": "rc"}.get(
                label, label
            )
            pre = (label, int(m.group("pre_n") or 0))
        self.pre = pre
        post = None
        if m.group("post"):
            post = int(m.group("post_n1") or m.group("post_n2") or 0)
        self.post = post
        self.dev = int(m.group("dev_n") or 0) if m.group("dev_l") else None
        local = m.group("local")
        self.local = (
            tuple(int(p) if p.isdigit() else p.lower() for p in re.split(r"[-_\.]", local))
            if local
            else None
        )
        self._key = self._make_key()

    def _make_key(self):
        release = list(self.release)
        while len(release) > 1 and release[-1] == 0:
            release.pop()
        if self.pre is None and self.post is None and self.dev is not None:
            pre = (-_INF,)
        elif self.pre is None:
            pre = (_INF,)
        else:
            pre = ({"a": 0, "b": 1, "rc": 2}[self.pre[0]], self.pre[1])
        post = (-_INF,) if self.post is None else (self.post,)
        dev = (_INF,) if self.dev is None else (self.dev,)
        if self.local is None:
            local = ((-_INF, ""),)
        else:
            local = tuple((p, "") if isinstance(p, int) else (-_INF, p) for p in self.local)
        return (self.epoch, tuple(release), pre, post, dev, local)

    @property
    def public(self):
        return str(self).split("+", 1)[0]

    @property
    def base_version(self):
        out = "{}!".format(self.epoch) if self.epoch else ""
        return out + ".".join(str(p) for p in self.release)

    @property
    def major(self):
        return self.release[0] if self.release else 0

    @property
    def minor(self):
        return self.release[1] if len(self.release) > 1 else 0

    @property
    def micro(self):
        return self.release[2] if len(self.release) > 2 else 0

    @property
    def is_prerelease(self):
        return self.dev is not None or self.pre is not None

    @property
    def is_postrelease(self):
        return self.post is not None

    @property
    def is_devrelease(self):
        return self.dev is not None

    def __str__(self):
        out = self.base_version
        if self.pre is not None:
            out += "{}{}".format(*self.pre)
        if self.post is not None:
            out += ".post{}".format(self.post)
        if self.dev is not None:
            out += ".dev{}".format(self.dev)
        if self.local is not None:
            out += "+" + ".".join(str(p) for p in self.local)
        return out

    def __repr__(self):
        return "<Version('{}')>".format(self)

    def __hash__(self):
        return hash(self._key)

    def _other(self, other):
        if isinstance(other, str):
            other = Version(other)
        if not isinstance(other, Version):
            return NotImplemented
        return other._key

    def __eq__(self, other):
        k = self._other(other)
        return k if k is NotImplemented else self._key == k

    def __ne__(self, other):
        k = self._other(other)
        return k if k is NotImplemented else self._key != k

    def __lt__(self, other):
        k = self._other(other)
        return k if k is NotImplemented else self._key < k

    def __le__(self, other):
        k = self._other(other)
        return k if k is NotImplemented else self._key <= k

    def __gt__(self, other):
        k = self._other(other)
        return k if k is NotImplemented else self._key > k

    def __ge__(self, other):
        k = self._other(other)
        return k if k is NotImplemented else self._key >= k


class StrictVersion(Version):
    """Deprecated in Salt 3006 (warns); use Version."""

    def __init__(self, *args, **kwargs):
        warnings.warn(
            "'salt.utils.versions.StrictVersion' is deprecated; use "
            "'salt.utils.versions.Version'",
            DeprecationWarning,
            stacklevel=2,
        )
        super().__init__(*args, **kwargs)


def version_cmp(pkg1, pkg2, ignore_epoch=False):
    """-1, 0 or 1 as pkg1 is older, equal or newer than pkg2 (compared as
    LooseVersion; with ignore_epoch an 'N:' prefix is dropped); None if they
    cannot be compared."""
    def normalize(x):
        return str(x).split(":", 1)[-1] if ignore_epoch else str(x)

    pkg1, pkg2 = normalize(pkg1), normalize(pkg2)
    try:
        if LooseVersion(pkg1) < LooseVersion(pkg2):
            return -1
        if LooseVersion(pkg1) == LooseVersion(pkg2):
            return 0
        if LooseVersion(pkg1) > LooseVersion(pkg2):
            return 1
    except Exception as exc:  # pylint: disable=broad-except
        log.exception(exc)
    return None


def compare(ver1="", oper="==", ver2="", cmp_func=None, ignore_epoch=False):
    """True if 'ver1 oper ver2' holds (oper one of < <= == != >= >),
    compared with cmp_func (default version_cmp); False for an invalid
    operator or a failed comparison."""
    cmp_map = {"<": (-1,), "<=": (-1, 0), "==": (0,), ">=": (0, 1), ">": (1,)}
    if oper != "!=" and oper not in cmp_map:
        log.error("Invalid operator '%s' for version comparison", oper)
        return False
    if cmp_func is None:
        cmp_func = version_cmp
    result = cmp_func(ver1, ver2, ignore_epoch=ignore_epoch)
    if result is None:
        return False
    if not isinstance(result, numbers.Integral):
        log.error("The version comparison function did not return an integer/long.")
        return False
    if oper == "!=":
        return result not in cmp_map["=="]
    result = max(-1, min(1, result))
    return result in cmp_map[oper]


def _to_salt_version(version):
    SSV = salt.version.SaltStackVersion
    if isinstance(version, SSV):
        return version
    if isinstance(version, int):
        return SSV(version)
    if isinstance(version, tuple):
        return SSV(*version)
    if isinstance(version, str):
        if version.lower() not in SSV.LNAMES:
            raise RuntimeError(
                "Incorrect spelling for the release name in the warn_utils "
                "call. Expecting one of these release names: {}".format(list(SSV.NAMES))
            )
        return SSV.from_name(version)
    raise RuntimeError(
        "The 'version' argument should be passed as a tuple, integer, string or "
        "an instance of 'salt.version.SaltVersion' or "
        "'salt.version.SaltStackVersion'."
    )


def warn_until(
    version,
    message,
    category=DeprecationWarning,
    stacklevel=None,
    _version_info_=None,
    _dont_call_warnings=False,
):
    """Warns (DeprecationWarning) with message ('{version}' is filled in)
    until the Salt version reaches version, and raises RuntimeError from
    then on.  brine reports 3006.0."""
    version = _to_salt_version(version)
    if stacklevel is None:
        stacklevel = 2
    if _version_info_ is None:
        _version_info_ = salt.version.__version_info__
    current = salt.version.SaltStackVersion(*_version_info_)
    if current >= version:
        caller = inspect.getframeinfo(sys._getframe(stacklevel - 1))
        raise RuntimeError(
            "The warning triggered on filename '{}', line number {}, is "
            "supposed to be shown until version {} is released. Current "
            "version is now {}. Please remove the warning.".format(
                caller.filename,
                caller.lineno,
                version.formatted_version,
                current.formatted_version,
            )
        )
    if _dont_call_warnings is False:
        warnings.warn(
            message.format(version=version.formatted_version), category, stacklevel=stacklevel
        )


def warn_until_date(
    date,
    message,
    category=DeprecationWarning,
    stacklevel=None,
    _current_date=None,
    _dont_call_warnings=False,
):
    """Warns with message ('{date}', '{today}' filled in) until date
    (a date, datetime or 'YYYYMMDD'), and raises RuntimeError from then on."""
    fmt = "%Y%m%d"
    if not isinstance(date, (str, datetime.date, datetime.datetime)):
        raise RuntimeError(
            "The 'date' argument should be passed as a 'datetime.date()' or "
            "'datetime.datetime()' objects or as string parserable by "
            "'datetime.datetime.strptime()' with the following format '{}'.".format(fmt)
        )
    if isinstance(date, str):
        date = datetime.datetime.strptime(date, fmt)
    if isinstance(date, datetime.datetime):
        date = date.date()
    if stacklevel is None:
        stacklevel = 2
    today = _current_date or datetime.datetime.utcnow().date()
    if today >= date:
        caller = inspect.getframeinfo(sys._getframe(stacklevel - 1))
        raise RuntimeError(
            "{} This warning(now exception) triggered on filename '{}', line "
            "number {}, is supposed to be shown until {}. Today is {}. Please "
            "remove the warning.".format(
                message.format(date=date.isoformat(), today=today.isoformat()),
                caller.filename,
                caller.lineno,
                date.isoformat(),
                today.isoformat(),
            )
        )
    if _dont_call_warnings is False:
        warnings.warn(
            message.format(date=date.isoformat(), today=today.isoformat()),
            category,
            stacklevel=stacklevel,
        )


def kwargs_warn_until(
    kwargs,
    version,
    category=DeprecationWarning,
    stacklevel=None,
    _version_info_=None,
    _dont_call_warnings=False,
):
    """warn_until for deprecated **kwargs: warns naming them (if any)."""
    if not isinstance(version, (tuple, str, salt.version.SaltStackVersion)):
        raise RuntimeError(
            "The 'version' argument should be passed as a tuple, string or "
            "an instance of 'salt.version.SaltStackVersion'."
        )
    version = _to_salt_version(version)
    if stacklevel is None:
        stacklevel = 3
    if _version_info_ is None:
        _version_info_ = salt.version.__version_info__
    current = salt.version.SaltStackVersion(*_version_info_)
    if kwargs or current.info >= version.info:
        names = ", ".join("'{}'".format(k) for k in kwargs)
        warn_until(
            version,
            message="The following parameter(s) have been deprecated and will be "
            "removed in '{}': {}.".format(version.string, names),
            category=category,
            stacklevel=stacklevel,
            _version_info_=current.info,
            _dont_call_warnings=_dont_call_warnings,
        )
