"""Fixture: @depends on names the module never binds unloads a function."""
import os

import salt.utils.decorators
from salt.utils.decorators import depends

try:
    import maybe_there

    HAS_MAYBE = True
except ImportError:
    HAS_MAYBE = False


@depends("non_existantmodulename")
def missing(a):
    pass


@salt.utils.decorators.depends("os")
def imported(a):
    pass


@depends("maybe_there", version="1.0")
def optional_import():
    pass


@depends(HAS_MAYBE)
def flagged():
    pass


@depends("nowhere", fallback_function=imported)
def fallback(a):
    pass


@depends("/bin/true", retcode=0)
def command():
    pass
