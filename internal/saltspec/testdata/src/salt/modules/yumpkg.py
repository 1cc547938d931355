"""Fixture: the other file providing "pkg"."""
__virtualname__ = "pkg"


def install(name=None, refresh=False, skip_verify=False, **kwargs):
    return name


def same(name):
    return name
