"""
salt.utils.data for brine: helpers for nested data (decoding, encoding,
traversal, truthiness, dictlists) with Salt 3006's behaviour.
"""

import copy
import datetime
import fnmatch
import functools
import hashlib
import logging
import random as _random
from collections import OrderedDict
from collections.abc import Mapping, MutableMapping, Sequence

import salt.utils.stringutils
from salt.defaults import DEFAULT_TARGET_DELIM
from salt.exceptions import SaltException

log = logging.getLogger(__name__)


# --------------------------------------------------------------- case helpers


def _change_case(data, attr, preserve_dict_class=False):
    try:
        return getattr(data, attr)()
    except AttributeError:
        pass
    cls = data.__class__
    if isinstance(data, Mapping):
        return (cls if preserve_dict_class else dict)(
            (
                _change_case(k, attr, preserve_dict_class),
                _change_case(v, attr, preserve_dict_class),
            )
            for k, v in data.items()
        )
    if isinstance(data, Sequence):
        return cls(_change_case(i, attr, preserve_dict_class) for i in data)
    return data


def to_lowercase(data, preserve_dict_class=False):
    """data with every string (keys too) lowercased, recursively."""
    return _change_case(data, "lower", preserve_dict_class)


def to_uppercase(data, preserve_dict_class=False):
    """data with every string (keys too) uppercased, recursively."""
    return _change_case(data, "upper", preserve_dict_class)


class CaseInsensitiveDict(MutableMapping):
    """A mapping whose keys compare case-insensitively; iteration gives the
    keys as last set, in insertion order."""

    def __init__(self, init=None, **kwargs):
        self._data = OrderedDict()
        self.update(init or {}, **kwargs)

    def __len__(self):
        return len(self._data)

    def __setitem__(self, key, value):
        self._data[to_lowercase(key)] = (key, value)

    def __delitem__(self, key):
        del self._data[to_lowercase(key)]

    def __getitem__(self, key):
        return self._data[to_lowercase(key)][1]

    def __iter__(self):
        return (pair[0] for pair in self._data.values())

    def __eq__(self, other):
        if not isinstance(other, Mapping):
            return False
        return dict(self.items_lower()) == dict(CaseInsensitiveDict(other).items_lower())

    def __repr__(self):
        return repr(dict(self.items()))

    def items_lower(self):
        """(lowercased key, value) pairs."""
        return ((k, v[1]) for k, v in self._data.items())

    def copy(self):
        return CaseInsensitiveDict(self._data.values())


# ------------------------------------------------------------------ compare


def compare_dicts(old=None, new=None):
    """{key: {'old': ..., 'new': ...}} for each added, removed or changed
    key ('' stands for the missing side)."""
    ret = {}
    for key in set(new or {}).union(old or {}):
        if key not in old:
            ret[key] = {"old": "", "new": new[key]}
        elif key not in new:
            ret[key] = {"new": "", "old": old[key]}
        elif new[key] != old[key]:
            ret[key] = {"old": old[key], "new": new[key]}
    return ret


def compare_lists(old=None, new=None):
    """{'new': [added items], 'old': [removed items]} (keys only if any)."""
    ret = {}
    for item in new:
        if item not in old:
            ret.setdefault("new", []).append(item)
    for item in old:
        if item not in new:
            ret.setdefault("old", []).append(item)
    return ret


# ------------------------------------------------------- decode and encode


def _remove_circular_refs(ob, _seen=None):
    """ob with any reference back to an enclosing container replaced by
    None (logged)."""
    if _seen is None:
        _seen = set()
    if id(ob) in _seen:
        log.error("Caught a circular reference in data structure; replacing it with None")
        return None
    _seen.add(id(ob))
    res = ob
    if isinstance(ob, dict):
        res = {
            _remove_circular_refs(k, _seen): _remove_circular_refs(v, _seen)
            for k, v in ob.items()
        }
    elif isinstance(ob, (list, tuple, set, frozenset)):
        res = type(ob)(_remove_circular_refs(v, _seen) for v in ob)
    _seen.discard(id(ob))
    return res


def _decode_scalar(item, encoding, errors, keep, normalize, to_str):
    func = salt.utils.stringutils.to_str if to_str else salt.utils.stringutils.to_unicode
    if isinstance(item, datetime.datetime):
        return item.isoformat()
    try:
        return func(item, encoding, errors, normalize)
    except TypeError:
        # not a string type: left as it is
        return item
    except UnicodeDecodeError:
        if not keep:
            raise
        return item


def _decode_any(item, encoding, errors, keep, normalize, pdc, pt, to_str):
    if isinstance(item, Mapping):
        return decode_dict(item, encoding, errors, keep, normalize, pdc, pt, to_str)
    if isinstance(item, list):
        return decode_list(item, encoding, errors, keep, normalize, pdc, pt, to_str)
    if isinstance(item, tuple):
        if pt:
            return decode_tuple(item, encoding, errors, keep, normalize, pdc, to_str)
        return decode_list(item, encoding, errors, keep, normalize, pdc, pt, to_str)
    return _decode_scalar(item, encoding, errors, keep, normalize, to_str)


def decode(
    data,
    encoding=None,
    errors="strict",
    keep=False,
    normalize=False,
    preserve_dict_class=False,
    preserve_tuples=False,
    to_str=False,
):
    """Decodes every bytes value (and key) in data to str, recursively.

    Tuples become lists unless preserve_tuples; mappings become dicts
    unless preserve_dict_class; datetimes become their isoformat(); other
    non-string values are left alone.  A value that cannot be decoded
    raises UnicodeDecodeError, or is kept as it is with keep=True.
    """
    data = _remove_circular_refs(data)
    return _decode_any(
        data, encoding, errors, keep, normalize, preserve_dict_class, preserve_tuples, to_str
    )


def decode_dict(
    data,
    encoding=None,
    errors="strict",
    keep=False,
    normalize=False,
    preserve_dict_class=False,
    preserve_tuples=False,
    to_str=False,
):
    """decode() for a mapping."""
    data = _remove_circular_refs(data)
    ret = data.__class__() if preserve_dict_class else {}
    args = (encoding, errors, keep, normalize, preserve_dict_class, preserve_tuples, to_str)
    for key, value in data.items():
        ret[_decode_any(key, *args)] = _decode_any(value, *args)
    return ret


def decode_list(
    data,
    encoding=None,
    errors="strict",
    keep=False,
    normalize=False,
    preserve_dict_class=False,
    preserve_tuples=False,
    to_str=False,
):
    """decode() for a list (any iterable; returns a list)."""
    data = _remove_circular_refs(data)
    args = (encoding, errors, keep, normalize, preserve_dict_class, preserve_tuples, to_str)
    return [_decode_any(item, *args) for item in data]


def decode_tuple(
    data,
    encoding=None,
    errors="strict",
    keep=False,
    normalize=False,
    preserve_dict_class=False,
    to_str=False,
):
    """decode() for a tuple (returns a tuple; nested tuples kept)."""
    return tuple(
        decode_list(data, encoding, errors, keep, normalize, preserve_dict_class, True, to_str)
    )


def _encode_scalar(item, encoding, errors, keep):
    try:
        return salt.utils.stringutils.to_bytes(item, encoding, errors)
    except TypeError:
        return item
    except UnicodeEncodeError:
        if not keep:
            raise
        return item


def _encode_any(item, encoding, errors, keep, pdc, pt):
    if isinstance(item, Mapping):
        return encode_dict(item, encoding, errors, keep, pdc, pt)
    if isinstance(item, list):
        return encode_list(item, encoding, errors, keep, pdc, pt)
    if isinstance(item, tuple):
        if pt:
            return encode_tuple(item, encoding, errors, keep, pdc)
        return encode_list(item, encoding, errors, keep, pdc, pt)
    return _encode_scalar(item, encoding, errors, keep)


def encode(
    data,
    encoding=None,
    errors="strict",
    keep=False,
    preserve_dict_class=False,
    preserve_tuples=False,
):
    """Encodes every str value (and key) in data to bytes, recursively
    (the mirror of decode(); keep=True keeps what cannot be encoded)."""
    data = _remove_circular_refs(data)
    return _encode_any(data, encoding, errors, keep, preserve_dict_class, preserve_tuples)


def encode_dict(
    data,
    encoding=None,
    errors="strict",
    keep=False,
    preserve_dict_class=False,
    preserve_tuples=False,
):
    """encode() for a mapping."""
    data = _remove_circular_refs(data)
    ret = data.__class__() if preserve_dict_class else {}
    args = (encoding, errors, keep, preserve_dict_class, preserve_tuples)
    for key, value in data.items():
        if isinstance(key, tuple):
            key = _encode_any(key, *args)
        else:
            key = _encode_scalar(key, encoding, errors, keep)
        ret[key] = _encode_any(value, *args)
    return ret


def encode_list(
    data,
    encoding=None,
    errors="strict",
    keep=False,
    preserve_dict_class=False,
    preserve_tuples=False,
):
    """encode() for a list."""
    data = _remove_circular_refs(data)
    args = (encoding, errors, keep, preserve_dict_class, preserve_tuples)
    return [_encode_any(item, *args) for item in data]


def encode_tuple(data, encoding=None, errors="strict", keep=False, preserve_dict_class=False):
    """encode() for a tuple."""
    return tuple(encode_list(data, encoding, errors, keep, preserve_dict_class, True))


# ----------------------------------------------------------------- predicates


def exactly_n(iterable, amount=1):
    """True if exactly amount items of iterable are truthy."""
    it = iter(iterable)
    return all(any(it) for _ in range(amount)) and not any(it)


def exactly_one(iterable):
    """True if exactly one item of iterable is truthy."""
    return exactly_n(iterable)


def is_true(value=None):
    """Salt's notion of truth: numbers (and numeric strings) > 0, the
    strings 'true' (any case), else bool(value)."""
    try:
        value = int(value)
    except (ValueError, TypeError):
        pass
    try:
        value = float(value)
    except (ValueError, TypeError):
        pass
    if isinstance(value, (int, float)):
        return value > 0
    if isinstance(value, str):
        return value.lower() == "true"
    return bool(value)


def is_list(value):
    """isinstance(value, list)."""
    return isinstance(value, list)


def is_iter(thing, ignore=(str,)):
    """True if thing is iterable and not of a type in ignore (strings)."""
    if ignore and isinstance(thing, ignore):
        return False
    try:
        iter(thing)
    except TypeError:
        return False
    return True


def is_dictlist(data):
    """True if data is a list of one-key dicts (as in SLS schemas)."""
    if not isinstance(data, list):
        return False
    return all(isinstance(e, dict) and len(e) == 1 for e in data)


def substr_in_list(string_to_search_for, list_to_search):
    """True if the string is a substring of any string of the list."""
    return any(string_to_search_for in s for s in list_to_search)


def sorted_ignorecase(to_sort):
    """Strings sorted case-insensitively."""
    return sorted(to_sort, key=lambda x: x.lower())


# ------------------------------------------------------------------ traverse


def traverse_dict(data, key, default=None, delimiter=DEFAULT_TARGET_DELIM):
    """data['a']['b']['c'] for key 'a:b:c', or default."""
    ptr = data
    try:
        for each in key.split(delimiter):
            ptr = ptr[each]
    except (KeyError, IndexError, TypeError):
        return default
    return ptr


def traverse_dict_and_list(data, key, default=None, delimiter=DEFAULT_TARGET_DELIM):
    """As traverse_dict, but a part may also index a list (numerically, or
    by a key of a dict inside the list); a part that is not a key as a
    string is retried YAML-loaded (so '1' finds the int key 1)."""
    ptr = data
    if isinstance(key, str):
        key = key.split(delimiter)
    if isinstance(key, int):
        key = [key]
    for each in key:
        if isinstance(ptr, list):
            try:
                idx = int(each)
            except ValueError:
                for embedded in (x for x in ptr if isinstance(x, dict)):
                    if each in embedded:
                        ptr = embedded[each]
                        break
                else:
                    return default
            else:
                for embedded in (x for x in ptr if isinstance(x, dict)):
                    if idx in embedded:
                        ptr = embedded[idx]
                        break
                else:
                    try:
                        ptr = ptr[idx]
                    except IndexError:
                        return default
        else:
            try:
                ptr = ptr[each]
            except KeyError:
                import salt.utils.args

                try:
                    loaded = salt.utils.args.yamlify_arg(each)
                except Exception:  # pylint: disable=broad-except
                    return default
                if loaded == each:
                    return default
                try:
                    ptr = ptr[loaded]
                except (KeyError, TypeError):
                    return default
            except TypeError:
                return default
    return ptr


def filter_by(lookup_dict, lookup, traverse, merge=None, default="default", base=None):
    """The value of lookup_dict whose key (a glob) matches the value found
    at lookup in traverse (grains, pillar); else lookup_dict[default];
    merged over lookup_dict[base] and under merge, as Salt's filter_by."""
    ret = None
    val = traverse_dict_and_list(traverse, lookup, [])
    for each in val if isinstance(val, list) else [val]:
        for key in lookup_dict:
            test_key = key if isinstance(key, str) else str(key)
            test_each = each if isinstance(each, str) else str(each)
            if fnmatch.fnmatchcase(test_each, test_key):
                ret = lookup_dict[key]
                break
        if ret is not None:
            break
    if ret is None:
        ret = lookup_dict.get(default, None)
    if base and base in lookup_dict:
        base_values = lookup_dict[base]
        if ret is None:
            ret = base_values
        elif isinstance(base_values, Mapping):
            if not isinstance(ret, Mapping):
                raise SaltException(
                    "filter_by default and look-up values must both be dictionaries."
                )
            import salt.utils.dictupdate

            ret = salt.utils.dictupdate.update(copy.deepcopy(base_values), ret)
    if merge:
        if not isinstance(merge, Mapping):
            raise SaltException("filter_by merge argument must be a dictionary.")
        if ret is None:
            ret = merge
        else:
            import salt.utils.dictupdate

            salt.utils.dictupdate.update(ret, copy.deepcopy(merge))
    return ret


def get_value(obj, path, default=None):
    """Values at a colon path, as a list of {'value': ...} dicts; a path
    part '{name}' matches every item of a dict or list and adds
    name: key-or-index to each result."""
    res = [{"value": obj}]
    if not path:
        return res
    if ":" in path:
        key, next_path = path.split(":", 1)
    else:
        key, next_path = path, None
    if key.startswith("{") and key.endswith("}"):
        placeholder = key[1:-1]
        if obj is None:
            return res
        if isinstance(obj, dict):
            items = obj.items()
        elif isinstance(obj, list):
            items = enumerate(obj)
        else:
            items = []
        out = []
        for k, v in items:
            for item in get_value(v, next_path, default):
                item[placeholder] = k
                out.append(item)
        return out
    if isinstance(obj, dict):
        if key not in obj:
            return [{"value": default}]
        return get_value(obj.get(key), next_path, default)
    return [{"value": default if obj is not None else obj}]


# ---------------------------------------------------------------- dictlists


def repack_dictlist(data, strict=False, recurse=False, key_cb=None, val_cb=None):
    """Turns a list of one-key dicts (and bare strings/numbers, which map
    to None) into one dict; {} (and a logged error) for invalid input.
    A YAML string is loaded first."""
    if isinstance(data, str):
        import salt.utils.yaml

        try:
            data = salt.utils.yaml.safe_load(data)
        except salt.utils.yaml.YAMLError as err:
            log.error(err)
            return {}
    if key_cb is None:
        key_cb = lambda x: x  # noqa: E731
    if val_cb is None:
        val_cb = lambda x, y: y  # noqa: E731
    scalars = (str, int, float)
    if not isinstance(data, list):
        log.error("Invalid input for repack_dictlist, data passed is not a list (%s)", data)
        return {}
    for element in data:
        if isinstance(element, scalars):
            continue
        if isinstance(element, dict):
            if len(element) != 1:
                log.error(
                    "Invalid input for repack_dictlist: key/value pairs must "
                    "contain only one element (data passed: %s).",
                    element,
                )
                return {}
        else:
            log.error(
                "Invalid input for repack_dictlist: element %s is not a "
                "string/dict/numeric value",
                element,
            )
            return {}
    ret = {}
    for element in data:
        if isinstance(element, scalars):
            ret[key_cb(element)] = None
            continue
        key = next(iter(element))
        val = element[key]
        if is_dictlist(val):
            if recurse:
                ret[key_cb(key)] = repack_dictlist(val, recurse=recurse)
            elif strict:
                log.error(
                    "Invalid input for repack_dictlist: nested dictlist found, "
                    "but recurse is set to False"
                )
                return {}
            else:
                ret[key_cb(key)] = val_cb(key, val)
        else:
            ret[key_cb(key)] = val_cb(key, val)
    return ret


# -------------------------------------------------------------------- misc


def mysql_to_dict(data, key):
    """Rows of MySQL's table output (lines) as {row[key]: row}."""
    ret = {}
    headers = [""]
    for line in data:
        if not line or line.startswith("+"):
            continue
        comps = [c.strip() for c in line.split("|")]
        if len(headers) > 1:
            index = len(headers) - 1
            row = {}
            for field in range(1, index):
                row[headers[field]] = salt.utils.stringutils.to_num(comps[field])
            ret[row[key]] = row
        else:
            headers = comps
    return ret


def simple_types_filter(data):
    """data with every value (and key) not of a simple type (str, int,
    float, bool, list, tuple, dict, None) replaced by its repr()."""
    if data is None:
        return data
    simple_keys = (str, int, float, bool)
    simple_values = simple_keys + (list, tuple)
    if isinstance(data, (list, tuple)):
        out = []
        for value in data:
            if value is not None:
                if isinstance(value, (dict, list)):
                    value = simple_types_filter(value)
                elif not isinstance(value, simple_values):
                    value = repr(value)
            out.append(value)
        return out
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            if key is not None and not isinstance(key, simple_keys):
                key = repr(key)
            if value is not None and isinstance(value, (dict, list, tuple)):
                value = simple_types_filter(value)
            elif value is not None and not isinstance(value, simple_values):
                value = repr(value)
            out[key] = value
        return out
    return data


def stringify(data):
    """The items of data as a list of str."""
    return [item if isinstance(item, str) else str(item) for item in data]


def _not_falsey(value, ignore_types=()):
    return isinstance(value, bool) or type(value) in ignore_types or value


def filter_falsey(data, recurse_depth=None, ignore_types=()):
    """data without its None, {}, [], 0 and '' items (False is kept, and
    so are values whose type is in ignore_types); recurse_depth levels of
    nested dicts/lists are filtered too."""
    if recurse_depth:
        inner = functools.partial(
            filter_falsey, recurse_depth=recurse_depth - 1, ignore_types=ignore_types
        )
    else:
        inner = lambda x: x  # noqa: E731
    if isinstance(data, dict):
        pairs = [(k, inner(v)) for k, v in data.items()]
        return type(data)([(k, v) for k, v in pairs if _not_falsey(v, ignore_types)])
    if is_iter(data):
        values = (inner(v) for v in data)
        return type(data)([v for v in values if _not_falsey(v, ignore_types)])
    return data


def flatten(data, levels=None, preserve_nulls=False, _ids=None):
    """A flat list of data's items (levels limits the depth; None, 'None'
    and 'null' items are dropped unless preserve_nulls)."""
    if _ids is None:
        _ids = set()
    if id(data) in _ids:
        raise RecursionError("Reference cycle detected. Check input list.")
    _ids.add(id(data))
    ret = []
    for element in data:
        if not preserve_nulls and element in (None, "None", "null"):
            continue
        if is_iter(element):
            if levels is None:
                ret.extend(flatten(element, preserve_nulls=preserve_nulls, _ids=_ids))
            elif levels >= 1:
                ret.extend(
                    flatten(element, levels=int(levels) - 1, preserve_nulls=preserve_nulls, _ids=_ids)
                )
            else:
                ret.append(element)
        else:
            ret.append(element)
    return ret


def hash(value, algorithm="sha512"):  # noqa: A001 - Salt's name
    """Hex digest of value (str or bytes) with a hashlib algorithm;
    SaltException for an unknown algorithm."""
    import builtins

    if isinstance(value, str):
        value = value.encode(getattr(builtins, "__salt_system_encoding__", "utf-8"))
    if algorithm in hashlib.algorithms_available or hasattr(hashlib, algorithm):
        hasher = hashlib.new(algorithm)
        hasher.update(value)
        return hasher.hexdigest()
    raise SaltException("You must specify a valid algorithm.")


def sample(value, size, seed=None):
    """size random items of value; with a seed, reproducibly (seeded, as
    Salt does, with the sha512 hex digest of the seed)."""
    if seed is None:
        return _random.sample(value, size)
    return _random.Random(hash(seed)).sample(value, size)


def shuffle(value, seed=None):
    """A shuffled copy of value (reproducible with seed, as sample())."""
    if seed is None:
        return _random.sample(value, len(value))
    return _random.Random(hash(seed)).sample(value, len(value))
