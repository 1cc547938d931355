"""Fixture: a state module named after its file."""


def touch(name, atime=None, mtime=None, makedirs=False):
    pass


def managed(name, source=None, **kwargs):
    return kwargs.pop("env", None)


def __call__(name):
    pass
