"""
salt.utils.dictupdate for brine: recursive dict update and the merge
strategies, as Salt 3006's.
"""

import copy
import logging
from collections.abc import Mapping

import salt.utils.data
from salt.defaults import DEFAULT_TARGET_DELIM
from salt.exceptions import SaltInvocationError
from salt.utils.odict import OrderedDict

log = logging.getLogger(__name__)


def update(dest, upd, recursive_update=True, merge_lists=False):
    """Merges upd into dest recursively (in place; returns dest).  Nested
    mappings merge; lists are replaced, or with merge_lists=True extended
    by the items of upd's list not already in dest's.
    recursive_update=False is the plain dict.update."""
    if not isinstance(dest, Mapping) or not isinstance(upd, Mapping):
        raise TypeError("Cannot update using non-dict types in dictupdate.update()")
    keys = list(upd.keys())
    if not set(dest.keys()) & set(keys):
        recursive_update = False
    if recursive_update:
        for key in keys:
            val = upd[key]
            try:
                sub = dest.get(key, None)
            except AttributeError:
                sub = None
            if isinstance(sub, Mapping) and isinstance(val, Mapping):
                dest[key] = update(sub, val, merge_lists=merge_lists)
            elif isinstance(sub, list) and isinstance(val, list):
                if merge_lists:
                    merged = copy.deepcopy(sub)
                    merged.extend(x for x in val if x not in merged)
                    dest[key] = merged
                else:
                    dest[key] = upd[key]
            else:
                dest[key] = upd[key]
        return dest
    for key in upd:
        dest[key] = upd[key]
    return dest


def merge_list(obj_a, obj_b):
    """obj_a with each key also in obj_b made [a's value, b's value]."""
    ret = {}
    for key, val in obj_a.items():
        ret[key] = [val, obj_b[key]] if key in obj_b else val
    return ret


def merge_recurse(obj_a, obj_b, merge_lists=False):
    """update() of a deep copy of obj_a with obj_b."""
    return update(copy.deepcopy(obj_a), obj_b, merge_lists=merge_lists)


def merge_aggregate(obj_a, obj_b):
    """Salt's 'aggregate' strategy needs the yamlex serializer's !aggregate
    markers, which brine's package does not have; without markers the
    top level merges and nested values replace, which is what this does."""
    ret = copy.deepcopy(obj_a)
    for key, val in obj_b.items():
        if isinstance(ret.get(key), Mapping) and isinstance(val, Mapping):
            merged = copy.deepcopy(ret[key])
            merged.update(val)
            ret[key] = merged
        else:
            ret[key] = val
    return ret


def merge_overwrite(obj_a, obj_b, merge_lists=False):
    """obj_a's keys that are also in obj_b replaced, then merge_recurse."""
    for obj in obj_b:
        if obj in obj_a:
            obj_a[obj] = obj_b[obj]
    return merge_recurse(obj_a, obj_b, merge_lists=merge_lists)


def merge(obj_a, obj_b, strategy="smart", renderer="yaml", merge_lists=False):
    """Merges with a strategy: smart (recurse; aggregate for yamlex),
    list, recurse, aggregate, overwrite, none (recurse without a warning);
    an unknown one logs a warning and recurses."""
    if strategy == "smart":
        if renderer.split("|")[-1] == "yamlex" or renderer.startswith("yamlex_"):
            strategy = "aggregate"
        else:
            strategy = "recurse"
    if strategy == "list":
        return merge_list(obj_a, obj_b)
    if strategy == "recurse":
        return merge_recurse(obj_a, obj_b, merge_lists)
    if strategy == "aggregate":
        return merge_aggregate(obj_a, obj_b)
    if strategy == "overwrite":
        return merge_overwrite(obj_a, obj_b, merge_lists)
    if strategy == "none":
        return merge_recurse(obj_a, obj_b)
    log.warning("Unknown merging strategy '%s', fallback to recurse", strategy)
    return merge_recurse(obj_a, obj_b)


def ensure_dict_key(in_dict, keys, delimiter=DEFAULT_TARGET_DELIM, ordered_dict=False):
    """Makes in_dict hold dicts along the delimited keys (replacing
    non-dicts on the way); returns in_dict."""
    parts = keys.split(delimiter) if delimiter in keys else [keys]
    ptr = in_dict
    for part in parts:
        if part not in ptr or not isinstance(ptr[part], dict):
            ptr[part] = OrderedDict() if ordered_dict else {}
        ptr = ptr[part]
    return in_dict


def _dict_rpartition(in_dict, keys, delimiter=DEFAULT_TARGET_DELIM, ordered_dict=False):
    if delimiter in keys:
        head, _, last = keys.rpartition(delimiter)
        ensure_dict_key(in_dict, head, delimiter=delimiter, ordered_dict=ordered_dict)
        ptr = salt.utils.data.traverse_dict(in_dict, head, default=None, delimiter=delimiter)
    else:
        ptr, last = in_dict, keys
    return ptr, last


def set_dict_key_value(in_dict, keys, value, delimiter=DEFAULT_TARGET_DELIM, ordered_dict=False):
    """Sets the value at the delimited keys (creating dicts on the way)."""
    ptr, last = _dict_rpartition(in_dict, keys, delimiter, ordered_dict)
    ptr[last] = value
    return in_dict


def update_dict_key_value(in_dict, keys, value, delimiter=DEFAULT_TARGET_DELIM, ordered_dict=False):
    """Updates the dict at the delimited keys with value."""
    ptr, last = _dict_rpartition(in_dict, keys, delimiter, ordered_dict)
    if last not in ptr or ptr[last] is None:
        ptr[last] = OrderedDict() if ordered_dict else {}
    try:
        ptr[last].update(value)
    except AttributeError:
        raise SaltInvocationError(
            "The last key contains a {}, which cannot update.".format(type(ptr[last]))
        )
    except (ValueError, TypeError):
        raise SaltInvocationError(
            "Cannot update {} with a {}.".format(type(ptr[last]), type(value))
        )
    return in_dict


def append_dict_key_value(in_dict, keys, value, delimiter=DEFAULT_TARGET_DELIM, ordered_dict=False):
    """Appends value to the list at the delimited keys."""
    ptr, last = _dict_rpartition(in_dict, keys, delimiter, ordered_dict)
    if last not in ptr or ptr[last] is None:
        ptr[last] = []
    try:
        ptr[last].append(value)
    except AttributeError:
        raise SaltInvocationError(
            "The last key contains a {}, which cannot append.".format(type(ptr[last]))
        )
    return in_dict


def extend_dict_key_value(in_dict, keys, value, delimiter=DEFAULT_TARGET_DELIM, ordered_dict=False):
    """Extends the list at the delimited keys with value."""
    ptr, last = _dict_rpartition(in_dict, keys, delimiter, ordered_dict)
    if last not in ptr or ptr[last] is None:
        ptr[last] = []
    try:
        ptr[last].extend(value)
    except AttributeError:
        raise SaltInvocationError(
            "The last key contains a {}, which cannot extend.".format(type(ptr[last]))
        )
    except TypeError:
        raise SaltInvocationError(
            "Cannot extend {} with a {}.".format(type(ptr[last]), type(value))
        )
    return in_dict
