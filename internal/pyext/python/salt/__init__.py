"""
brine's Salt compatibility package.

brine (a Go implementation of SaltStack 3006's state system) runs the
Python a Salt tree carries (custom ``_modules``, ``_states``, ``_grains``,
``_renderers``, ``_utils`` and ``#!py`` SLS files) in a python3 worker.
Those files import parts of Salt; this package provides the commonly used
ones, written for brine from Salt's documented behaviour.  It is *not*
Salt: only the modules listed in README.md (next to this file) exist.

Importing any other ``salt.*`` module fails with an ImportError that names
the module and says that brine does not ship it.
"""

import builtins
import importlib.abc
import locale
import sys

# Salt puts the system encoding into builtins (salt/__init__.py); modules
# (and Salt's own utils) refer to it as a bare name.
if not hasattr(builtins, "__salt_system_encoding__"):
    try:
        _enc = locale.getpreferredencoding(False) or sys.getdefaultencoding()
    except Exception:  # pragma: no cover - very unusual locales
        _enc = sys.getdefaultencoding()
    if _enc.lower() in ("ascii", "ansi_x3.4-1968", "us-ascii"):
        # Salt likewise prefers utf-8 over a plain-ASCII locale.
        _enc = "utf-8"
    builtins.__salt_system_encoding__ = _enc

# Prefixes that belong to the worker (modules it loads by file location),
# not to this package; a miss there is an ordinary ModuleNotFoundError.
_NOT_OURS = ("salt.loaded",)


class _NotShippedFinder(importlib.abc.MetaPathFinder):
    """Last finder on sys.meta_path: turns "no module named salt.X" into a
    message that says brine does not ship salt.X."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("salt.") or fullname.startswith(_NOT_OURS):
            return None
        raise ModuleNotFoundError(
            "No module named '{0}': brine's Salt compatibility package does "
            "not ship '{0}' (brine follows Salt 3006 but provides only the "
            "salt modules listed in its README; see "
            "internal/pyext/python/salt/README.md)".format(fullname),
            name=fullname,
        )


if not any(isinstance(f, _NotShippedFinder) for f in sys.meta_path):
    sys.meta_path.append(_NotShippedFinder())

# Marker that this is brine's package and not a real Salt install.
__brine__ = True
