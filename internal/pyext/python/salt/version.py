"""
salt.version for brine's compatibility package.

brine follows Salt 3006 (its state system, requisites and renderers behave
as 3006's do), so custom modules that check the Salt version see 3006.0.
"""

__version__ = "3006.0"

# (major, minor) as Salt reports it
__version_info__ = (3006, 0)

# Release code names (Salt's table), by version info.
_NAMES = (
    ("Hydrogen", (2014, 1)),
    ("Helium", (2014, 7)),
    ("Lithium", (2015, 5)),
    ("Beryllium", (2015, 8)),
    ("Boron", (2016, 3)),
    ("Carbon", (2016, 11)),
    ("Nitrogen", (2017, 7)),
    ("Oxygen", (2018, 3)),
    ("Fluorine", (2019, 2)),
) + tuple(
    (name, (3000 + i,))
    for i, name in enumerate(
        (
            "Neon Sodium Magnesium Aluminium Silicon Phosphorus Sulfur Chlorine "
            "Argon Potassium Calcium Scandium Titanium Vanadium Chromium "
            "Manganese Iron Cobalt Nickel Copper Zinc Gallium Germanium Arsenic "
            "Selenium Bromine Krypton Rubidium Strontium Yttrium Zirconium "
            "Niobium Molybdenum Technetium Ruthenium Rhodium Palladium"
        ).split()
    )
)


class SaltStackVersion:
    """A small stand-in for Salt's SaltStackVersion: major/minor, info,
    string, formatted_version, from_name, name lookups and comparisons."""

    NAMES = {name: info for name, info in _NAMES}
    LNAMES = {name.lower(): info for name, info in _NAMES}
    RMATCH = {info: name for name, info in _NAMES}

    def __init__(self, major, minor=None, *rest):
        self.major = int(major)
        if minor is None:
            minor = 0
        self.minor = int(minor)

    @classmethod
    def from_name(cls, name):
        info = cls.LNAMES.get(name.lower())
        if info is None:
            raise ValueError("Named version '{}' is not known".format(name))
        return cls(*info)

    @staticmethod
    def new_version(major):
        return 3000 <= int(major) < 10000

    @property
    def info(self):
        return (self.major, self.minor)

    @property
    def name(self):
        key = (self.major,) if self.new_version(self.major) else (self.major, self.minor)
        return self.RMATCH.get(key)

    @property
    def string(self):
        if self.new_version(self.major):
            if self.minor or self.major >= 3006:
                return "{}.{}".format(self.major, self.minor)
            return "{}".format(self.major)
        return "{}.{}.0".format(self.major, self.minor)

    @property
    def formatted_version(self):
        out = self.string
        if self.name:
            out += " ({})".format(self.name)
        return out

    def __str__(self):
        return self.string

    def __repr__(self):
        return "<SaltStackVersion name={!r} major={} minor={}>".format(
            self.name, self.major, self.minor
        )

    def _key(self, other):
        if isinstance(other, SaltStackVersion):
            return other.info
        if isinstance(other, str):
            if other.lower() in self.LNAMES:
                return SaltStackVersion(*self.LNAMES[other.lower()]).info
            parts = [int(p) for p in other.split(".")[:2] if p.isdigit()]
            return tuple(parts + [0] * (2 - len(parts)))
        if isinstance(other, int):
            return (other, 0)
        if isinstance(other, (tuple, list)):
            parts = list(other[:2])
            return tuple(parts + [0] * (2 - len(parts)))
        return NotImplemented

    def _cmp(self, other, op):
        key = self._key(other)
        if key is NotImplemented:
            return NotImplemented
        return op(self.info, key)

    def __eq__(self, other):
        import operator

        return self._cmp(other, operator.eq)

    def __ne__(self, other):
        import operator

        return self._cmp(other, operator.ne)

    def __lt__(self, other):
        import operator

        return self._cmp(other, operator.lt)

    def __le__(self, other):
        import operator

        return self._cmp(other, operator.le)

    def __gt__(self, other):
        import operator

        return self._cmp(other, operator.gt)

    def __ge__(self, other):
        import operator

        return self._cmp(other, operator.ge)

    def __hash__(self):
        return hash(self.info)


__saltstack_version__ = SaltStackVersion(*__version_info__)


def salt_information():
    """Yields ("Salt", version) as Salt's does."""
    yield "Salt", __version__
