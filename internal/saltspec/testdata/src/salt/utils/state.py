"""Fixture: a helper outside modules/states that reads kwargs."""


def opts(cmd, localconfig=None, **kwargs):
    return kwargs.get("saltenv")
