"""
salt.utils.path for brine: which(), join() and friends as Salt 3006 has
them.
"""

import logging
import os
import posixpath
import re
from collections.abc import Iterable

import salt.utils.platform
import salt.utils.stringutils
from salt.exceptions import CommandNotFoundError

log = logging.getLogger(__name__)

# Searched after $PATH when missing from it (non-Windows), as Salt does.
_EXTRA_PATH = ["/sbin", "/bin", "/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"]


def islink(path):
    """os.path.islink."""
    return os.path.islink(path)


def readlink(path):
    """os.readlink."""
    return os.readlink(path)


def which(exe=None):
    """The path of executable exe, searched in $PATH (plus the sbin/bin
    dirs Salt adds), or None.  An exe that is itself an executable path is
    returned as given; the result is the path in the PATH dir (symlinks
    are followed only to check executability)."""
    if not exe:
        log.error("No executable was passed to be searched by salt.utils.path.which()")
        return None

    def executable(path):
        return os.path.isfile(path) and os.access(path, os.X_OK)

    def resolve(path):
        while os.path.islink(path):
            target = os.readlink(path)
            if not os.path.isabs(target):
                target = join(os.path.dirname(path), target)
            path = target
        return path

    search = salt.utils.stringutils.to_unicode(os.environ.get("PATH", "")).split(os.pathsep)
    if salt.utils.platform.is_windows():
        pathext = os.environ.get("PATHEXT", ".EXE").split(os.pathsep)
        exts = {e.lower() for e in pathext}
        if os.path.splitext(exe)[1].lower() in exts:
            pathext = [""]
            is_exec = executable
        else:
            is_exec = lambda p: executable(p) and os.path.splitext(p)[1].lower() in exts  # noqa: E731
    else:
        have = set(search)
        search.extend(p for p in _EXTRA_PATH if p not in have)
        pathext = [""]
        is_exec = executable

    if is_exec(exe):
        return exe
    for directory in search:
        base = join(directory, exe)
        for ext in pathext:
            if is_exec(resolve(base + ext)):
                return base + ext
    return None


def which_bin(exes):
    """The path of the first of exes (a name or a list of names) found by
    which(), or None."""
    if isinstance(exes, str):
        exes = [exes]
    if not isinstance(exes, Iterable):
        return None
    for exe in exes:
        path = which(exe)
        if path:
            return path
    return None


def join(*parts, **kwargs):
    """Joins path parts, absolute ones included: join('/a', '/b') is
    '/a/b' (not '/b' as os.path.join gives); the result is normalized.
    use_posixpath=True joins with '/' on every platform."""
    import salt.utils.args

    parts = [salt.utils.stringutils.to_str(p) for p in parts]
    kwargs = salt.utils.args.clean_kwargs(**kwargs)
    use_posixpath = kwargs.pop("use_posixpath", False)
    if kwargs:
        salt.utils.args.invalid_kwargs(kwargs)
    mod = posixpath if use_posixpath else os.path
    parts = [mod.normpath(p) for p in parts]
    if not parts:
        return ""
    root = parts.pop(0)
    if not parts:
        ret = root
    else:
        ret = mod.join(root, *[p.lstrip(os.sep) for p in parts])
    return mod.normpath(ret)


def check_or_die(command):
    """Raises CommandNotFoundError unless command is found by which()."""
    if command is None:
        raise CommandNotFoundError("'None' is not a valid command.")
    if not which(command):
        raise CommandNotFoundError("'{}' is not in the path".format(command))


def sanitize_win_path(winpath):
    """winpath with the characters Windows forbids (<>:|?*) made '_'."""
    if isinstance(winpath, str):
        winpath = winpath.translate({ord(c): "_" for c in "<>:|?*"})
    return winpath


def safe_path(path, allow_path=None):
    """False if path is one Salt must not modify (a drive root such as
    C:\\, a lone backslash, or %SystemRoot%, matched case-insensitively
    at the start of path), unless an allow_path matches its start too."""
    system_root = os.environ.get("SystemRoot", "C:\\Windows")
    deny = (r"[a-z]\:\\$", r"\\$", re.escape(system_root))
    if allow_path and not isinstance(allow_path, list):
        allow_path = [allow_path]
    allow = [re.escape(item) for item in (allow_path or [])]
    good = not any(re.match(d, path, flags=re.IGNORECASE) for d in deny)
    if not good:
        good = any(re.match(a, path, flags=re.IGNORECASE) for a in allow)
    return good


def os_walk(top, *args, **kwargs):
    """os.walk with str paths."""
    import salt.utils.data

    for item in os.walk(salt.utils.stringutils.to_str(top), *args, **kwargs):
        yield salt.utils.data.decode(item, preserve_tuples=True)


def expand(path):
    """path with ~ and environment variables expanded, made real."""
    return os.path.realpath(os.path.expandvars(os.path.expanduser(path)))
