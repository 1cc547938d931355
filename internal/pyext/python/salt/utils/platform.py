"""
salt.utils.platform for brine: which platform the worker runs on.

The answers come from sys.platform / os.uname() of the host brine runs on,
as Salt's do on a minion.  is_proxy() is always False: brine has no proxy
minions.
"""

import functools
import multiprocessing
import os
import platform
import sys


def _memoize(func):
    return functools.lru_cache(maxsize=None)(func)


def _os_release():
    """NAME, VERSION_ID and VERSION_CODENAME from /etc/os-release."""
    info = {}
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        try:
            with open(path, encoding="utf-8") as fh:
                for line in fh:
                    line = line.strip()
                    if "=" in line and not line.startswith("#"):
                        key, _, val = line.partition("=")
                        info[key] = val.strip().strip('"').strip("'")
            break
        except OSError:
            continue
    return info


def linux_distribution(full_distribution_name=True):
    """(name, version, codename) of the Linux distribution, from
    /etc/os-release (Salt asks the 'distro' package; brine reads the file
    that package reads first).  With full_distribution_name=False the
    name is the short id ('ubuntu' rather than 'Ubuntu')."""
    info = _os_release()
    name = info.get("NAME", "") if full_distribution_name else info.get("ID", "")
    codename = info.get("VERSION_CODENAME", "") or info.get("UBUNTU_CODENAME", "")
    return name, info.get("VERSION_ID", ""), codename


@_memoize
def is_windows():
    """True on Windows."""
    return sys.platform.startswith("win")


@_memoize
def is_proxy():
    """Always False: brine runs no proxy minions."""
    return False


@_memoize
def is_linux():
    """True on Linux."""
    return sys.platform.startswith("linux")


@_memoize
def is_darwin():
    """True on macOS."""
    return sys.platform.startswith("darwin")


@_memoize
def is_sunos():
    """True on SunOS/Solaris/illumos."""
    return sys.platform.startswith("sunos")


@_memoize
def is_smartos():
    """True on SmartOS."""
    if not is_sunos():
        return False
    return os.uname()[3].startswith("joyent_")


def _zonename():
    import subprocess

    try:
        proc = subprocess.Popen(["zonename"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = proc.communicate()[0].strip().decode()
    except OSError:
        return None
    if proc.returncode:
        return None
    return out


@_memoize
def is_smartos_globalzone():
    """True in SmartOS's global zone."""
    if not is_smartos():
        return False
    return _zonename() == "global"


@_memoize
def is_smartos_zone():
    """True in a SmartOS zone other than the global one."""
    if not is_smartos():
        return False
    zone = _zonename()
    return zone is not None and zone != "global"


@_memoize
def is_junos():
    """True on Junos (FreeBSD with a JNPR kernel)."""
    return sys.platform.startswith("freebsd") and os.uname().release.startswith("JNPR")


@_memoize
def is_freebsd():
    """True on FreeBSD."""
    return sys.platform.startswith("freebsd")


@_memoize
def is_netbsd():
    """True on NetBSD."""
    return sys.platform.startswith("netbsd")


@_memoize
def is_openbsd():
    """True on OpenBSD."""
    return sys.platform.startswith("openbsd")


@_memoize
def is_aix():
    """True on AIX."""
    return sys.platform.startswith("aix")


@_memoize
def is_fedora():
    """True on Fedora."""
    return linux_distribution()[0].strip("\"'") == "Fedora"


@_memoize
def is_photonos():
    """True on VMware Photon OS."""
    return linux_distribution()[0].strip("\"'") == "VMware Photon OS"


@_memoize
def is_aarch64():
    """True on an AArch64 machine."""
    return platform.machine().startswith("aarch64")


def spawning_platform():
    """True if multiprocessing starts processes by spawning."""
    return multiprocessing.get_start_method(allow_none=False) == "spawn"
