"""
salt.version for brine's compatibility package.

brine follows Salt 3006 (its state system, requisites and renderers behave
as 3006's do), so custom modules that check the Salt version see 3006.0.
"""

__version__ = "3006.0"

# (major, minor) as Salt reports it in __version_info__ / __saltstack_version__.info
__version_info__ = (3006, 0)


class _SaltStackVersion:
    """A small stand-in for salt.version.SaltStackVersion: only what custom
    modules read (major, minor, info, string, comparisons)."""

    def __init__(self, major, minor=0):
        self.major = major
        self.minor = minor

    @property
    def info(self):
        return (self.major, self.minor)

    @property
    def string(self):
        return "{}.{}".format(self.major, self.minor)

    def __str__(self):
        return self.string

    def __repr__(self):
        return "<SaltStackVersion name='Sulfur' major={} minor={}>".format(
            self.major, self.minor
        )

    def _key(self, other):
        if isinstance(other, _SaltStackVersion):
            return other.info
        if isinstance(other, str):
            parts = [int(p) for p in other.split(".")[:2] if p.isdigit()]
            return tuple(parts + [0] * (2 - len(parts)))
        if isinstance(other, (tuple, list)):
            return tuple(other[:2])
        return NotImplemented

    def __eq__(self, other):
        k = self._key(other)
        return NotImplemented if k is NotImplemented else self.info == k

    def __lt__(self, other):
        k = self._key(other)
        return NotImplemented if k is NotImplemented else self.info < k

    def __le__(self, other):
        k = self._key(other)
        return NotImplemented if k is NotImplemented else self.info <= k

    def __gt__(self, other):
        k = self._key(other)
        return NotImplemented if k is NotImplemented else self.info > k

    def __ge__(self, other):
        k = self._key(other)
        return NotImplemented if k is NotImplemented else self.info >= k

    def __hash__(self):
        return hash(self.info)


__saltstack_version__ = _SaltStackVersion(*__version_info__)
SaltStackVersion = _SaltStackVersion


def salt_information():
    """Yields ("Salt", version) as Salt's does."""
    yield "Salt", __version__
