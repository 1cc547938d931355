"""
salt.modules.file for brine: only the path predicates custom grains and
modules import directly (``from salt.modules import file`` then
``file.directory_exists(...)``).  The rest of Salt's file module is
reached through ``__salt__['file.*']``.
"""

import os


def file_exists(path):
    """True if path exists and is a file (symlinks followed)."""
    return os.path.isfile(os.path.expanduser(path))


def directory_exists(path):
    """True if path exists and is a directory (symlinks followed)."""
    return os.path.isdir(os.path.expanduser(path))


def __getattr__(name):
    raise AttributeError(
        "salt.modules.file.{0}: brine's Salt compatibility package provides only "
        "file_exists and directory_exists here; call __salt__['file.{0}'] "
        "instead".format(name)
    )
