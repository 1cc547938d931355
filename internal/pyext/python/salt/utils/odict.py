"""
salt.utils.odict for brine: OrderedDict (collections.OrderedDict, made
unhashable as Salt's is) and DefaultOrderedDict.
"""

import collections
import copy
from collections.abc import Callable


class OrderedDict(collections.OrderedDict):
    """collections.OrderedDict (Salt's subclass)."""

    __hash__ = None


class DefaultOrderedDict(OrderedDict):
    """An OrderedDict with a defaultdict's default_factory."""

    def __init__(self, default_factory=None, *a, **kw):
        if default_factory is not None and not isinstance(default_factory, Callable):
            raise TypeError("first argument must be callable")
        super().__init__(*a, **kw)
        self.default_factory = default_factory

    def __getitem__(self, key):
        try:
            return OrderedDict.__getitem__(self, key)
        except KeyError:
            return self.__missing__(key)

    def __missing__(self, key):
        if self.default_factory is None:
            raise KeyError(key)
        self[key] = value = self.default_factory()
        return value

    def __reduce__(self):
        args = tuple() if self.default_factory is None else (self.default_factory,)
        return type(self), args, None, None, iter(self.items())

    def copy(self):
        return self.__copy__()

    def __copy__(self):
        return type(self)(self.default_factory, self)

    def __deepcopy__(self, memo=None):
        return type(self)(self.default_factory, copy.deepcopy(list(self.items()), memo))

    def __repr__(self):
        return "DefaultOrderedDict({}, {})".format(
            self.default_factory, collections.OrderedDict.__repr__(self)
        )
