"""
salt.utils.args for brine: argument helpers with Salt 3006's behaviour.
"""

import inspect
import logging
import re
import shlex
from collections import namedtuple

import salt.utils.data
import salt.utils.stringutils
from salt.exceptions import SaltInvocationError

log = logging.getLogger(__name__)

KWARG_REGEX = re.compile(r"^([^\d\W][\w.-]*)=(?!=)(.*)$", re.UNICODE)

ArgSpec = namedtuple("ArgSpec", "args varargs keywords defaults")


def clean_kwargs(**kwargs):
    """kwargs without the keys that start with '__' (__pub_*, ...)."""
    return {k: v for k, v in kwargs.items() if not k.startswith("__")}


def invalid_kwargs(invalid_kwargs, raise_exc=True):
    """Raises SaltInvocationError naming the invalid kwargs (a dict or a
    list of strings); with raise_exc=False returns the message."""
    if invalid_kwargs and isinstance(invalid_kwargs, dict):
        invalid_kwargs = ["{}={}".format(k, v) for k, v in invalid_kwargs.items()]
    msg = "The following keyword arguments are not valid: {}".format(
        ", ".join(invalid_kwargs)
    )
    if raise_exc:
        raise SaltInvocationError(msg)
    return msg


def _is_jid(jid):
    """salt.utils.jid.is_jid: 20 digits, optionally followed by _suffix."""
    if len(jid) != 20 and (len(jid) <= 21 or jid[20] != "_"):
        return False
    try:
        int(jid[:20])
    except ValueError:
        return False
    return True


def condition_input(args, kwargs):
    """args plus, if kwargs is a non-empty dict, {'__kwarg__': True, **kwargs}
    (ints that look like job ids become strings)."""
    ret = []
    for arg in args:
        if isinstance(arg, int) and _is_jid(str(arg)):
            ret.append(str(arg))
        else:
            ret.append(arg)
    if isinstance(kwargs, dict) and kwargs:
        kw_ = {"__kwarg__": True}
        kw_.update(kwargs)
        return ret + [kw_]
    return ret


def parse_kwarg(string_):
    """(name, value) of a 'name=value' string, else (None, None)."""
    match = KWARG_REGEX.match(string_)
    if match is None:
        return None, None
    return match.groups()


def parse_input(args, condition=True, no_parse=None):
    """Splits CLI-style args into positional args and key=value kwargs
    (values YAML-loaded unless their name is in no_parse)."""
    if no_parse is None:
        no_parse = ()
    _args = []
    _kwargs = {}
    for arg in args:
        if isinstance(arg, str):
            name, value = parse_kwarg(arg)
            if name:
                _kwargs[name] = yamlify_arg(value) if name not in no_parse else value
            else:
                _args.append(yamlify_arg(arg))
        elif isinstance(arg, dict):
            if arg.pop("__kwarg__", False) is True:
                _kwargs.update(arg)
            else:
                _args.append(arg)
        else:
            _args.append(arg)
    if condition:
        return condition_input(_args, _kwargs)
    return _args, _kwargs


def yamlify_arg(arg):
    """A CLI argument YAML-loaded as Salt does it: only non-strings and
    strings that load to None/number/str, or to a dict/list written with
    braces/brackets, change; anything else is returned as given."""
    if not isinstance(arg, str):
        return arg
    if arg.strip() in ("", "---", "..."):
        return arg
    if "_" in arg and all(c in "0123456789_" for c in arg.strip()):
        return arg
    if any(c in arg for c in ("\t", "\r", "\n")):
        return arg
    original = arg
    try:
        import salt.utils.yaml

        if "#" in arg:
            parsed = salt.utils.yaml.safe_load(arg)
            if isinstance(parsed, str) or parsed is None:
                return arg
            return parsed
        if arg == "None":
            arg = None
        else:
            arg = salt.utils.yaml.safe_load(arg)
        if isinstance(arg, dict):
            return arg if original.startswith("{") else original
        if isinstance(arg, list):
            return arg if original.startswith("[") else original
        if arg is None or isinstance(arg, (float, int, str)):
            if arg == "" and original in ("|", "!"):
                return original
            if arg is None and original.strip().startswith("#"):
                return original
            if arg is None and original == "!":
                return original
            return arg
        return original
    except Exception:  # pylint: disable=broad-except
        return original


def get_function_argspec(func, is_class_method=None):
    """ArgSpec(args, varargs, keywords, defaults) of a callable (the
    innermost of __wrapped__ chains); is_class_method drops 'self'."""
    if not callable(func):
        raise TypeError("{} is not a callable".format(func))
    while hasattr(func, "__wrapped__"):
        func = func.__wrapped__
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError):
        raise TypeError("Cannot inspect argument list for '{}'".format(func))
    args, defaults = [], []
    varargs = keywords = None
    for param in sig.parameters.values():
        if param.kind == param.POSITIONAL_OR_KEYWORD:
            args.append(param.name)
            if param.default is not inspect.Parameter.empty:
                defaults.append(param.default)
        elif param.kind == param.VAR_POSITIONAL:
            varargs = param.name
        elif param.kind == param.VAR_KEYWORD:
            keywords = param.name
    if is_class_method:
        del args[0]
    return ArgSpec(args, varargs, keywords, tuple(defaults) or None)


def shlex_split(s, **kwargs):
    """shlex.split for a string; anything else is returned as is."""
    if isinstance(s, str):
        return salt.utils.data.decode(shlex.split(s, **kwargs))
    return s


def arg_lookup(fun, aspec=None):
    """{'args': [required args], 'kwargs': {name: default}} of a function."""
    ret = {"kwargs": {}}
    if aspec is None:
        aspec = get_function_argspec(fun)
    if aspec.defaults:
        ret["kwargs"] = dict(zip(aspec.args[::-1], aspec.defaults[::-1]))
    ret["args"] = [a for a in aspec.args if a not in ret["kwargs"]]
    return ret


def argspec_report(functions, module=""):
    """{name: {'args', 'defaults', 'varargs', 'kwargs'}} for the loader
    functions (name -> callable) matching module: a glob when module has
    '*' or '.', else the functions of that module ('sys' does not match
    'sysctl.*').  Unset parts are None, set flags True."""
    import fnmatch

    if "*" in module or "." in module:
        names = fnmatch.filter(functions, module)
    else:
        names = [f for f in functions if f.startswith(module + ".")]
    ret = {}
    for name in names:
        try:
            args, varargs, kwargs, defaults = get_function_argspec(functions[name])
        except TypeError:
            continue
        ret[name] = {
            "args": args if args else None,
            "defaults": defaults if defaults else None,
            "varargs": True if varargs else None,
            "kwargs": True if kwargs else None,
        }
    return ret


def split_input(val, mapper=None):
    """A list from a list, or from a comma-separated string (items
    stripped), each passed through mapper."""
    if mapper is None:
        mapper = lambda x: x  # noqa: E731
    if isinstance(val, list):
        return list(map(mapper, val))
    try:
        return list(map(mapper, [x.strip() for x in val.split(",")]))
    except AttributeError:
        return list(map(mapper, [x.strip() for x in str(val).split(",")]))


def test_mode(**kwargs):
    """True if a kwarg named test (any case) is true (salt.utils.data.is_true)."""
    for arg, value in kwargs.items():
        try:
            if arg.lower() == "test" and salt.utils.data.is_true(value):
                return True
        except AttributeError:
            continue
    return False


def format_call(fun, data, initial_ret=None, expected_extra_kws=(), is_class_method=None):
    """{'args': [...], 'kwargs': OrderedDict} to call fun with the values in
    data (a dict keyed by argument name).  SaltInvocationError when a
    required argument is missing, or when data has keys fun does not take
    (and fun has no **kwargs), with Salt's messages."""
    import copy
    from collections import OrderedDict

    ret = initial_ret is not None and initial_ret or {}
    ret["args"] = []
    ret["kwargs"] = OrderedDict()
    aspec = get_function_argspec(fun, is_class_method=is_class_method)
    arg_data = arg_lookup(fun, aspec)
    args = arg_data["args"]
    kwargs = arg_data["kwargs"]
    data = data.copy()
    missing = []
    for key in kwargs:
        if key in data:
            kwargs[key] = data.pop(key)
    while args:
        arg = args.pop(0)
        if arg in data:
            ret["args"].append(data.pop(arg))
        else:
            missing.append(arg)
    if missing:
        used = len(ret["args"]) + len(args)
        total = used + len(missing)
        raise SaltInvocationError(
            "{} takes at least {} argument{} ({} given)".format(
                fun.__name__, total, "s" if total > 1 else "", used
            )
        )
    ret["kwargs"].update(kwargs)
    if aspec.keywords:
        for key, value in data.items():
            if key not in expected_extra_kws:
                ret["kwargs"][key] = value
        return ret
    extra = {k: copy.deepcopy(v) for k, v in data.items() if k not in expected_extra_kws}
    if extra:
        full = ret.get("full", "{}.{}".format(fun.__module__, fun.__name__))
        names = list(extra)
        if len(names) == 1:
            msg = "'{}' is an invalid keyword argument for '{}'".format(names[0], full)
        else:
            msg = "{} and '{}' are invalid keyword arguments for '{}'".format(
                ", ".join("'{}'".format(e) for e in names[:-1]), names[-1], full
            )
        raise SaltInvocationError(msg)
    return ret


def prepare_kwargs(all_kwargs, class_init_kwargs):
    """Splits all_kwargs into (kwargs for a class's __init__, the rest)."""
    fun_kwargs = {}
    init_kwargs = {}
    for key, val in all_kwargs.items():
        if key in class_init_kwargs:
            init_kwargs[key] = val
        else:
            fun_kwargs[key] = val
    return init_kwargs, fun_kwargs
