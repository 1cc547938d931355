"""Fixture: __load__ restricts the public functions."""
__load__ = ["shown"]


def shown(a, b=1):
    pass


def hidden():
    pass
