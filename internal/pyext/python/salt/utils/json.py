"""
salt.utils.json for brine: thin wrappers around the json module, as Salt's.
dumps()/dump() default to ensure_ascii=False; loads() accepts bytes;
find_json() finds a JSON document in text that has garbage around it.
An alternate json module can be passed as _json_module.
"""

import json
import logging

import salt.utils.stringutils

log = logging.getLogger(__name__)

JSONEncoder = json.JSONEncoder


def find_json(raw):
    """The JSON document inside raw (text may precede or follow it);
    ValueError when there is none."""
    ret = {}
    lines = raw.splitlines()
    lengths = [len(line) for line in lines]
    starts, ends = [], []
    for ind, line in enumerate(lines):
        first = line.lstrip()[:1]
        if first in ("{", "["):
            starts.append((ind, first))
        if first in ("}", "]"):
            ends.append((ind, first))
    pairs = []
    for start, sbr in starts:
        for end, ebr in reversed(ends):
            if end > start and ((sbr == "{" and ebr == "}") or (sbr == "[" and ebr == "]")):
                pairs.append((start, end, sum(lengths[start : end + 1])))
    pairs.sort(key=lambda x: (x[2], x[1] - x[0], x[0]), reverse=True)
    for start, end, _ in pairs:
        try:
            return json.loads("\n".join(lines[start : end + 1]))
        except ValueError:
            pass
        # drop anything after the closing bracket on the last line
        working = "\n".join(lines[start:end]) + lines[end].lstrip()[0]
        try:
            return json.loads(working)
        except ValueError:
            continue
    for ind in range(len(lines)):
        try:
            ret = json.loads("\n".join(lines[ind:]))
        except ValueError:
            continue
        if ret:
            return ret
    if not ret:
        raise ValueError
    return ret


def import_json():
    """The fastest json module available (ujson, yajl, else json)."""
    for name in ("ujson", "yajl", "json"):
        try:
            return __import__(name)
        except ImportError:
            continue
    return json


def load(fp, **kwargs):
    """json.load."""
    return kwargs.pop("_json_module", json).load(fp, **kwargs)


def loads(s, **kwargs):
    """json.loads (bytes are decoded first if the module refuses them)."""
    mod = kwargs.pop("_json_module", json)
    try:
        return mod.loads(s, **kwargs)
    except TypeError:
        if isinstance(s, bytes):
            return mod.loads(salt.utils.stringutils.to_unicode(s), **kwargs)
        raise


def dump(obj, fp, **kwargs):
    """json.dump with ensure_ascii=False unless given."""
    mod = kwargs.pop("_json_module", json)
    kwargs.setdefault("ensure_ascii", False)
    return mod.dump(obj, fp, **kwargs)


def dumps(obj, **kwargs):
    """json.dumps with ensure_ascii=False unless given."""
    mod = kwargs.pop("_json_module", json)
    kwargs.setdefault("ensure_ascii", False)
    return mod.dumps(obj, **kwargs)
