"""Fixture: __virtual__ returning a literal, conditional defs, aliases,
binds, __virtual_aliases__ and kwargs followed into helpers."""
import salt.utils.state
from salt.modules.aptpkg import same

__virtual_aliases__ = ("shell",)


def __virtual__():
    if False:
        return (False, "never")
    return "cmd"


try:
    import fcntl

    def run(cmd, cwd=None, **kwargs):
        return _helper(cmd, **kwargs)

except ImportError:

    def run(cmd, **kwargs):
        return cmd


def _helper(cmd, shell=None, **kw):
    if "umask" in kw:
        pass
    return salt.utils.state.opts(cmd, **kw) + kw["timeout"]


run_all = run


class Ignored:
    def method(self):
        pass


same = salt.utils.functools.namespaced_function(same, globals())

run_stream = salt.utils.functools.alias_function(run, "run_stream")
