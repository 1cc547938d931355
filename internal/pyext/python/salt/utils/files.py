"""
salt.utils.files for brine: file helpers with Salt 3006's behaviour.

``fopen`` is Salt's wrapper around open(): text mode defaults to the
system encoding and to ``newline=""`` (no newline translation: a file
with CRLF line ends reads back with ``\\r\\n``), ``binary=True`` forces a
binary mode, fds 0/1/2 are refused, and the descriptor is close-on-exec.
"""

import builtins
import contextlib
import errno
import io
import logging
import os
import re
import shutil
import stat
import tempfile
import time
import urllib.parse

try:
    import fcntl

    HAS_FCNTL = hasattr(fcntl, "fcntl")
except ImportError:  # pragma: no cover - Windows
    HAS_FCNTL = False

import salt.utils.platform
import salt.utils.stringutils
from salt.exceptions import CommandExecutionError, FileLockError, MinionError

log = logging.getLogger(__name__)

LOCAL_PROTOS = ("", "file")
REMOTE_PROTOS = ("http", "https", "ftp", "swift", "s3")
VALID_PROTOS = ("salt", "file") + REMOTE_PROTOS
TEMPFILE_PREFIX = "__salt.tmp."

HASHES = {
    "sha512": 128,
    "sha384": 96,
    "sha256": 64,
    "sha224": 56,
    "sha1": 40,
    "md5": 32,
}
HASHES_REVMAP = {y: x for x, y in HASHES.items()}


def _system_encoding():
    return getattr(builtins, "__salt_system_encoding__", "utf-8")


def guess_archive_type(name):
    """'tar', 'zip' or 'rar' from a file name's extension, else None."""
    name = name.lower()
    for ending in ("tar", "tar.gz", "tgz", "tar.bz2", "tbz2", "tbz",
                   "tar.xz", "txz", "tar.lzma", "tlz"):
        if name.endswith("." + ending):
            return "tar"
    for ending in ("zip", "rar"):
        if name.endswith("." + ending):
            return ending
    return None


def mkstemp(*args, **kwargs):
    """tempfile.mkstemp() with Salt's prefix; closes the fd and returns the
    path unless close_fd=False (then returns (fd, path))."""
    kwargs.setdefault("prefix", TEMPFILE_PREFIX)
    close_fd = kwargs.pop("close_fd", True)
    fd_, path = tempfile.mkstemp(*args, **kwargs)
    if close_fd is False:
        return fd_, path
    os.close(fd_)
    return path


def recursive_copy(source, dest):
    """cp -r source/. dest (existing files not in source are kept)."""
    for root, _, files in os.walk(source):
        rel = root.replace(source, "").lstrip(os.sep)
        target = os.path.join(dest, rel)
        if not os.path.exists(target):
            os.makedirs(target)
        for name in files:
            shutil.copyfile(os.path.join(source, rel, name), os.path.join(target, name))


def copyfile(source, dest, backup_mode="", cachedir=""):
    """Copies source over dest atomically (via a temp file in dest's
    directory), keeping dest's owner and mode when it existed.  Salt's
    backups (backup_mode) are not made by brine."""
    if not os.path.isfile(source):
        raise OSError("[Errno 2] No such file or directory: {}".format(source))
    if not os.path.isdir(os.path.dirname(dest)):
        raise OSError("[Errno 2] No such file or directory: {}".format(dest))
    fd_, tgt = tempfile.mkstemp(prefix=TEMPFILE_PREFIX, dir=os.path.dirname(dest))
    os.close(fd_)
    try:
        shutil.copyfile(source, tgt)
        if os.path.exists(dest):
            fstat = os.stat(dest)
            try:
                os.chown(tgt, fstat.st_uid, fstat.st_gid)
            except OSError:
                pass
            os.chmod(tgt, stat.S_IMODE(fstat.st_mode))
        shutil.move(tgt, dest)
    finally:
        if os.path.exists(tgt):
            os.remove(tgt)


def rename(src, dst):
    """os.rename that replaces an existing dst (also on Windows)."""
    try:
        os.rename(src, dst)
    except OSError as exc:
        if exc.errno != errno.EEXIST:
            raise
        os.remove(dst)
        os.rename(src, dst)


def process_read_exception(exc, path, ignore=None):
    """Re-raises an OSError from reading path as CommandExecutionError with
    Salt's messages (unless its errno is in ignore)."""
    if ignore is not None:
        if isinstance(ignore, int):
            ignore = (ignore,)
    else:
        ignore = ()
    if exc.errno in ignore:
        return
    if exc.errno == errno.ENOENT:
        raise CommandExecutionError("{} does not exist".format(path))
    elif exc.errno == errno.EACCES:
        raise CommandExecutionError("Permission denied reading from {}".format(path))
    else:
        raise CommandExecutionError(
            "Error {} encountered reading from {}: {}".format(exc.errno, path, exc.strerror)
        )


@contextlib.contextmanager
def wait_lock(path, lock_fn=None, timeout=5, sleep=0.1, time_start=None):
    """Holds a write lock (the file lock_fn, default path + '.w') for the
    duration of the with-block; raises FileLockError after timeout s."""
    if lock_fn is None:
        lock_fn = path + ".w"
    if time_start is None:
        time_start = time.time()
    obtained = False
    try:
        while True:
            try:
                fd_ = os.open(lock_fn, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                os.close(fd_)
                obtained = True
                break
            except OSError as exc:
                if exc.errno != errno.EEXIST:
                    raise FileLockError(
                        "Error {} encountered obtaining file lock {}: {}".format(
                            exc.errno, lock_fn, exc.strerror
                        ),
                        time_start=time_start,
                    )
            if time.time() - time_start >= timeout:
                raise FileLockError(
                    "Timeout of {} seconds exceeded waiting for lock_fn {} "
                    "to be released".format(timeout, lock_fn),
                    time_start=time_start,
                )
            time.sleep(sleep)
        yield
    finally:
        if obtained:
            os.remove(lock_fn)


def get_umask():
    """The current umask."""
    ret = os.umask(0)
    os.umask(ret)
    return ret


@contextlib.contextmanager
def set_umask(mask):
    """Temporarily sets the umask (no-op for None or on Windows)."""
    if mask is None or salt.utils.platform.is_windows():
        yield
    else:
        orig = os.umask(mask)
        try:
            yield
        finally:
            os.umask(orig)


def _force_binary_mode(mode):
    if "b" not in mode:
        mode = mode.replace("t", "b")
        if "b" not in mode:
            mode += "b"
    return mode


def fopen(*args, **kwargs):
    """open() as Salt wraps it (see the module docstring)."""
    if args and args[0] in (0, 1, 2):
        # open() would take False/True/0/1/2 as stdin/stdout/stderr
        raise TypeError("{} is not a permitted file descriptor".format(args[0]))
    if kwargs.pop("binary", None):
        if len(args) > 1:
            args = list(args)
            args[1] = _force_binary_mode(args[1])
        elif kwargs.get("mode"):
            kwargs["mode"] = _force_binary_mode(kwargs["mode"])
        else:
            kwargs["mode"] = "rb"
    binary = None
    if "encoding" not in kwargs:
        binary = False
        if len(args) > 1 and "b" in args[1]:
            binary = True
        if kwargs.get("mode") and "b" in kwargs["mode"]:
            binary = True
        if not binary:
            kwargs["encoding"] = _system_encoding()
    if not binary and not kwargs.get("newline", None):
        kwargs["newline"] = ""
    if kwargs.get("buffering") == 1 and "b" in kwargs.get("mode", ""):
        # line buffering is not supported in binary mode
        kwargs["buffering"] = io.DEFAULT_BUFFER_SIZE
    handle = open(*args, **kwargs)  # pylint: disable=resource-leakage
    if HAS_FCNTL:
        flags = fcntl.fcntl(handle.fileno(), fcntl.F_GETFD)
        fcntl.fcntl(handle.fileno(), fcntl.F_SETFD, flags | getattr(fcntl, "FD_CLOEXEC", 1))
    return handle


@contextlib.contextmanager
def flopen(*args, **kwargs):
    """fopen with an flock (shared, or exclusive for w/a modes)."""
    filename, rest = args[0], args[1:]
    with fopen(filename, *rest, **kwargs) as handle:
        locked = is_fcntl_available(check_sunos=True)
        try:
            if locked:
                lock = fcntl.LOCK_SH
                if rest and any(w in rest[0] for w in "wa"):
                    lock = fcntl.LOCK_EX
                fcntl.flock(handle.fileno(), lock)
            yield handle
        finally:
            if locked:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@contextlib.contextmanager
def fpopen(*args, **kwargs):
    """fopen that also sets uid/gid/mode (kwargs) on the file (an int fd
    argument is wrapped with os.fdopen)."""
    uid = kwargs.pop("uid", -1)
    gid = kwargs.pop("gid", -1)
    mode = kwargs.pop("mode", None)
    with fopen(*args, **kwargs) as handle:
        path = args[0]
        d_stat = os.stat(path)
        if hasattr(os, "chown"):
            if (d_stat.st_uid != uid or d_stat.st_gid != gid) and [
                i for i in (uid, gid) if i != -1
            ]:
                os.chown(path, uid, gid)
        if mode is not None:
            mode_part = stat.S_IMODE(d_stat.st_mode)
            if mode_part != mode:
                os.chmod(path, (d_stat.st_mode ^ mode_part) | mode)
        yield handle


def safe_walk(top, topdown=True, onerror=None, followlinks=True, _seen=None):
    """os.walk that follows symlinks but never loops on a recursive one."""
    if _seen is None:
        _seen = set()
    try:
        names = os.listdir(top)
    except OSError as err:
        if onerror is not None:
            onerror(err)
        return
    if followlinks:
        st = os.stat(top)
        if st.st_ino != 0:
            node = (st.st_dev, st.st_ino)
            if node in _seen:
                return
            _seen.add(node)
    dirs, nondirs = [], []
    for name in names:
        (dirs if os.path.isdir(os.path.join(top, name)) else nondirs).append(name)
    if topdown:
        yield top, dirs, nondirs
    for name in dirs:
        new = os.path.join(top, name)
        if followlinks or not os.path.islink(new):
            yield from safe_walk(new, topdown, onerror, followlinks, _seen)
    if not topdown:
        yield top, dirs, nondirs


def safe_rm(tgt):
    """os.remove ignoring any OSError."""
    try:
        os.remove(tgt)
    except OSError:
        pass


def rm_rf(path):
    """rm -rf path (a file, a symlink or a directory)."""
    if os.path.islink(path) or not os.path.isdir(path):
        os.remove(path)
    else:
        shutil.rmtree(path)


def is_empty(filename):
    """True if the file exists and is empty."""
    try:
        return os.stat(filename).st_size == 0
    except OSError:
        return False


def is_fcntl_available(check_sunos=False):
    """True where fcntl can be used (not on SunOS with check_sunos)."""
    if check_sunos and salt.utils.platform.is_sunos():
        return False
    return HAS_FCNTL


def safe_filename_leaf(file_basename):
    """The basename with \\ : / * ? " < > | percent-encoded."""

    def _replace(match):
        return urllib.parse.quote(match.group(0), safe="")

    if not isinstance(file_basename, str):
        file_basename = str(file_basename, "utf8")
    return re.sub('[\\\\:/*?"<>|]', _replace, file_basename, flags=re.UNICODE)


def safe_filepath(file_path_name, dir_sep=None):
    """safe_filename_leaf applied to every part of a path."""
    if not dir_sep:
        dir_sep = os.sep
    drive, path = os.path.splitdrive(file_path_name)
    path = dir_sep.join(safe_filename_leaf(p) for p in path.rsplit(dir_sep))
    if drive:
        path = dir_sep.join([drive, path])
    return path


def is_text(fp_, blocksize=512):
    """Heuristic: True if the first block of the file (object or path) is
    text: no NUL, and valid UTF-8 or at most 30% non-text bytes."""
    text_chars = bytes(range(32, 127)) + b"\n\r\t\f\b"
    try:
        block = fp_.read(blocksize)
    except AttributeError:
        try:
            with fopen(fp_, "rb") as fp2:
                block = fp2.read(blocksize)
        except OSError:
            return False
    if b"\x00" in block:
        return False
    if not block:
        return True
    try:
        block.decode("utf-8")
        return True
    except UnicodeDecodeError:
        pass
    nontext = block.translate(None, text_chars)
    return float(len(nontext)) / len(block) <= 0.30


def is_binary(path):
    """True if the file at path looks binary (False if it is not a file)."""
    if not os.path.isfile(path):
        return False
    try:
        with fopen(path, "rb") as fp_:
            data = fp_.read(2048)
            try:
                data = data.decode(_system_encoding())
            except UnicodeDecodeError:
                return True
            return salt.utils.stringutils.is_binary(data)
    except OSError:
        return False


def remove(path):
    """os.remove that ignores a missing file."""
    try:
        os.remove(path)
    except OSError as exc:
        if exc.errno != errno.ENOENT:
            raise


def list_files(directory):
    """Every file and directory under directory (itself included)."""
    ret = {directory}
    for root, dirs, files in safe_walk(directory):
        for name in files + dirs:
            ret.add(os.path.join(root, name))
    return list(ret)


def st_mode_to_octal(mode):
    """The last 4 octal digits of an st_mode ('' if not an int)."""
    try:
        return oct(mode)[-4:]
    except (TypeError, IndexError):
        return ""


def normalize_mode(mode):
    """A mode as a 4-digit string with leading zero ('644' -> '0644',
    0o755 -> '0755' via str; None stays None)."""
    if mode is None:
        return None
    if not isinstance(mode, str):
        mode = str(mode)
    mode = mode.replace("0o", "0")
    return mode.strip('"').strip("'").lstrip("0").zfill(4)


def human_size_to_bytes(human_size):
    """'2G' -> 2147483648 (digits with an optional K/M/G/T/P unit)."""
    exps = {"K": 1, "M": 2, "G": 3, "T": 4, "P": 5}
    match = re.match(r"^(\d+)([KMGTP])?$", str(human_size))
    if not match:
        raise ValueError(
            "Size must be all digits, with an optional unit type (K, M, G, T, or P)"
        )
    return int(match.group(1)) * 1024 ** exps.get(match.group(2), 0)


def case_insensitive_filesystem(path=None):
    """True if the file system (of path, or the temp dir) ignores case."""
    with tempfile.NamedTemporaryFile(prefix="TmP", dir=path, delete=True) as tmp:
        return os.path.exists(tmp.name.lower())


def get_encoding(path):
    """The encoding of a file as Salt names it: from a BOM ('UTF-32-BE',
    'UTF-32-LE', 'UTF-16-BE', 'UTF-16-LE', 'UTF-8', 'UTF-7'), else 'UTF-8'
    if its first 2 KiB decode as such, else the system encoding, else
    'ASCII'; CommandExecutionError if it is not a file or none fits."""
    import codecs

    boms = (
        ("UTF-32-BE", codecs.BOM_UTF32_BE),
        ("UTF-32-LE", codecs.BOM_UTF32_LE),
        ("UTF-16-BE", codecs.BOM_UTF16_BE),
        ("UTF-16-LE", codecs.BOM_UTF16_LE),
        ("UTF-8", codecs.BOM_UTF8),
        ("UTF-7", b"+/v8-"),
        ("UTF-7", b"+/v8"),
        ("UTF-7", b"+/v9"),
        ("UTF-7", b"+/v+"),
        ("UTF-7", b"+/v/"),
    )
    if not os.path.isfile(path):
        raise CommandExecutionError("Not a file")
    try:
        with fopen(path, "rb") as fp_:
            data = fp_.read(2048)
    except OSError:
        raise CommandExecutionError("Failed to open file")
    for name, bom in boms:
        if data.startswith(bom):
            return name
    try:
        data.decode("UTF-8")
        return "UTF-8"
    except UnicodeDecodeError:
        pass
    try:
        data.decode(_system_encoding())
        return _system_encoding()
    except (UnicodeDecodeError, LookupError):
        pass
    try:
        data.decode("ASCII")
        return "ASCII"
    except UnicodeDecodeError:
        pass
    raise CommandExecutionError("Could not detect file encoding")
