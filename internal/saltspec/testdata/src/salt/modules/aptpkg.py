"""Fixture: one of two files providing "pkg"."""
__virtualname__ = "pkg"

__func_alias__ = {"list_": "list"}


def __virtual__():
    return __virtualname__


def install(name=None, refresh=False, *, fromrepo=None, **kwargs):
    return kwargs.get("cache_valid_time")


def list_(*args):
    return []


def _private(x):
    return x


def same(name):
    return name
