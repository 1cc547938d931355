"""brine's Python worker: loads Salt extension modules and runs them.

brine starts this file with ``python3 -u brine_worker.py PYDIR`` and talks
to it over stdin/stdout in frames: a 4-byte big-endian length, then a JSON
object. Every request gets exactly one reply ({"op": "ret", "value": ...}
or {"op": "exc", ...}); while serving a request the worker may send its own
"call" requests back to brine (for __salt__ functions written in Go) and
reads replies to them before answering.
"""

import datetime
import functools
import importlib.machinery
import importlib.util
import inspect
import io
import json
import os
import re
import struct
import sys
import tempfile
import traceback
import types
import zipimport

# The protocol gets descriptors of its own; descriptors 0 and 1 become
# /dev/null and stderr, so that neither user code printing nor a process
# it starts (which inherits 0 and 1) can read or corrupt the stream.
_IN = os.fdopen(os.dup(0), "rb")
_OUT = os.fdopen(os.dup(1), "wb")
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
os.dup2(2, 1)
sys.stdin = open(os.devnull)
sys.stdout = sys.stderr


class WorkerDied(Exception):
    """brine closed the pipe."""


def _default(obj):
    """Values JSON cannot hold print as their repr, as salt-call's json does."""
    if isinstance(obj, (set, frozenset, bytes, bytearray, datetime.date, datetime.datetime)):
        return repr(obj)
    if hasattr(obj, "items"):
        return dict(obj.items())
    if hasattr(obj, "__iter__") and not isinstance(obj, str):
        return list(obj)
    return repr(obj)


def send(msg):
    data = json.dumps(msg, default=_default).encode("utf-8")
    _OUT.write(struct.pack(">I", len(data)) + data)
    _OUT.flush()


def recv():
    head = _IN.read(4)
    if len(head) < 4:
        raise WorkerDied()
    (n,) = struct.unpack(">I", head)
    data = _IN.read(n)
    if len(data) < n:
        raise WorkerDied()
    return json.loads(data)


class GoError(Exception):
    """An error raised by a brine (Go) function called through __salt__."""


def _exc_class(name):
    try:
        import salt.exceptions as se  # noqa: F401
    except ImportError:
        se = None
    short = name.rsplit(".", 1)[-1]
    if se is not None and hasattr(se, short):
        return getattr(se, short)
    return GoError


def call_go(kind, fun, args, kwargs):
    """Calls back into brine and serves nested requests until the reply."""
    send({"op": "call", "kind": kind, "fun": fun, "args": list(args), "kwargs": kwargs})
    while True:
        msg = recv()
        op = msg.get("op")
        if op == "ret":
            return msg.get("value")
        if op == "exc":
            raise _exc_class(msg.get("type", ""))(msg.get("msg", ""))
        serve(msg)


def _ensure_salt_exceptions():
    """Makes salt.exceptions importable when the compatibility package is
    not there (a minimal stand-in, in memory only)."""
    try:
        import salt.exceptions  # noqa: F401
        return
    except ImportError:
        pass
    salt = sys.modules.get("salt") or types.ModuleType("salt")
    salt.__path__ = []
    exc = types.ModuleType("salt.exceptions")

    class SaltException(Exception):
        pass

    exc.SaltException = SaltException
    for name in ("CommandExecutionError", "SaltInvocationError", "SaltRenderError",
                 "CommandNotFoundError", "MinionError", "SaltReqTimeoutError"):
        cls = type(name, (SaltException,), {})
        cls.__module__ = "salt.exceptions"
        setattr(exc, name, cls)
    SaltException.__module__ = "salt.exceptions"
    salt.exceptions = exc
    sys.modules["salt"] = salt
    sys.modules["salt.exceptions"] = exc


class Funcs(dict):
    """A loader dict (__salt__, __states__, __utils__): Python functions
    first, brine's Go functions through call_go."""

    def __init__(self, kind):
        super().__init__()
        self.kind = kind
        self.go = set()

    def __contains__(self, key):
        return dict.__contains__(self, key) or key in self.go

    def __getitem__(self, key):
        if dict.__contains__(self, key):
            return dict.__getitem__(self, key)
        if key in self.go:
            kind = self.kind

            def proxy(*args, **kwargs):
                return call_go(kind, key, args, kwargs)

            proxy.__name__ = key
            return proxy
        raise KeyError(key)

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default


class Packed:
    """What every loaded module gets injected (Salt's loader pack)."""

    def __init__(self):
        self.opts = {}
        self.grains = {}
        self.pillar = {}
        self.context = {}
        self.salt = Funcs("exec")
        self.states = Funcs("state")
        self.utils = Funcs("utils")
        self.renderers = {}
        self.modules = {}  # (kind, name) -> module


P = Packed()

TAGS = {"modules": "module", "states": "states", "grains": "grains",
        "utils": "utils", "renderers": "render"}
# the disable_* option of each kind (Salt's disable_<tag>s)
DISABLE = {"modules": "modules", "states": "states", "grains": "grains",
           "utils": "utils", "renderers": "renders"}


def _inject(mod, kind):
    mod.__opts__ = P.opts
    mod.__context__ = P.context
    mod.__utils__ = P.utils
    if kind == "grains":
        # salt.loader.grain_funcs packs only __utils__ and __context__;
        # the LazyLoader adds __grains__ (opts["grains"]: the config's
        # static grains) and __pillar__. No __salt__: a grain module that
        # wants one defines its own.
        mod.__grains__ = P.opts.get("grains") or {}
        mod.__pillar__ = P.opts.get("pillar") or {}
        return
    mod.__grains__ = P.grains
    mod.__pillar__ = P.pillar
    mod.__salt__ = P.salt
    if kind == "states":
        mod.__states__ = P.states
        mod.__low__ = {}
        mod.__running__ = {}
        mod.__instance_id__ = 0
        mod.__env__ = P.opts.get("saltenv") or "base"


_PRE_EXT = re.compile(r"\.cpython-%d%d(\.opt-[1-9])?$" % sys.version_info[:2])
_pyximport = None


def _suffix_order():
    """The suffixes Salt's loader maps, best first: packages, extension
    modules, sources, bytecode, then .pyx (cython_enable, with pyximport
    importable) and .zip (enable_zip_modules)."""
    global _pyximport
    order = [""] + list(importlib.machinery.EXTENSION_SUFFIXES)
    order += list(importlib.machinery.SOURCE_SUFFIXES) + list(importlib.machinery.BYTECODE_SUFFIXES)
    if P.opts.get("cython_enable") is True:
        try:
            import pyximport
            if _pyximport is None:
                pyximport.install()
                _pyximport = pyximport
            order.append(".pyx")
        except ImportError:
            print("Cython is enabled in the options but not present in the system path. "
                  "Skipping Cython modules.", file=sys.stderr)
    if P.opts.get("enable_zip_modules") is True:
        order.append(".zip")
    return order


def _split(basename, order):
    """(name, suffix) of a file name, the longest known suffix first
    (fast.cpython-311-x86_64-linux-gnu.so is fast with that suffix)."""
    for suffix in sorted((x for x in order if x), key=len, reverse=True):
        if basename.endswith(suffix):
            return basename[:-len(suffix)], suffix
    name, ext = os.path.splitext(basename)
    return name, ext


def _files(root, kind):
    """Salt's file mapping of one module directory: its files and the
    packages in it (not other subdirectories), private names skipped, the
    disable_<kind> option applied, one file per module name chosen by
    suffix (a package beats an extension module beats a source file);
    bytecode only from __pycache__. Returns [(name, path, suffix)] sorted
    by name."""
    try:
        names = sorted(x for x in os.listdir(root) if x != "__pycache__")
    except OSError:
        return []
    try:
        names += [os.path.join("__pycache__", x)
                  for x in sorted(os.listdir(os.path.join(root, "__pycache__")))]
    except OSError:
        pass
    order = _suffix_order()
    disabled = set(P.opts.get("disable_" + DISABLE.get(kind, kind)) or [])
    mapping = {}
    for filename in names:
        dirname, basename = os.path.split(filename)
        if basename.startswith("_"):
            continue
        path = os.path.join(root, filename)
        if os.path.isdir(path):
            name, suffix = basename, ""
            if "." in name:
                continue
            if not any(os.path.isfile(os.path.join(path, "__init__" + x)) for x in order if x):
                continue
        else:
            name, suffix = _split(basename, order)
            name = _PRE_EXT.sub("", name)
            if suffix not in order or not suffix:
                continue
            if suffix in importlib.machinery.BYTECODE_SUFFIXES and not dirname:
                continue
        if name in disabled:
            continue
        if name in mapping and order.index(mapping[name][1]) <= order.index(suffix):
            continue
        mapping[name] = (path, suffix)
    return [(n, p, x) for n, (p, x) in sorted(mapping.items())]


def _exec_module(spec, mod, path, root):
    """Runs mod with its own directory and the custom utils directory on
    sys.path, as Salt's loader does (a grain module may import a sibling:
    `import network_backend`)."""
    added = []
    for d in (os.path.join(os.path.dirname(root), "utils"), os.path.dirname(path)):
        if d not in sys.path:
            sys.path.append(d)
            added.append(d)
    try:
        spec.loader.exec_module(mod)
    finally:
        for d in added:
            if d in sys.path:
                sys.path.remove(d)


def _import(modname, name, path, suffix, kind, root):
    """Imports one mapped module file under modname."""
    if suffix == ".pyx":
        mod = _pyximport.load_module(modname, path, tempfile.gettempdir())
        _inject(mod, kind)
        return mod
    if suffix == ".zip":
        spec = zipimport.zipimporter(path).find_spec(name)
        if spec is None:
            raise ImportError("%s holds no module named %s" % (path, name))
    elif suffix == "":
        init = next(os.path.join(path, "__init__" + x) for x in _suffix_order()
                    if x and os.path.isfile(os.path.join(path, "__init__" + x)))
        spec = importlib.util.spec_from_file_location(modname, init, submodule_search_locations=[path])
    elif suffix in importlib.machinery.EXTENSION_SUFFIXES:
        spec = importlib.util.spec_from_file_location(
            modname, path, loader=importlib.machinery.ExtensionFileLoader(modname, path))
    elif suffix in importlib.machinery.BYTECODE_SUFFIXES:
        spec = importlib.util.spec_from_file_location(
            modname, path, loader=importlib.machinery.SourcelessFileLoader(modname, path))
    else:
        spec = importlib.util.spec_from_file_location(modname, path)
    if spec is None:
        raise ImportError("cannot import %s" % path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    _inject(mod, kind)
    _exec_module(spec, mod, path, root)
    return mod


def _exported(fn, kind):
    """Salt's loader exposes plain Python functions and partials and, but
    for utils, only those defined in a module it loaded (its namespace is
    salt.loaded): imported functions stay hidden, as do the functions of
    .zip and .pyx modules, which Salt imports under their bare name."""
    if not (inspect.isfunction(fn) or isinstance(fn, functools.partial)):
        return False
    if kind == "utils":
        return True
    # a partial's __module__ is functools'
    return (getattr(fn, "__module__", None) or "").startswith("salt.loaded")


def _attrs(mod):
    """The names Salt looks at: __load__, else __all__, else dir()."""
    for key in ("__load__", "__all__"):
        names = getattr(mod, key, None)
        if names is not None:
            return list(names)
    return dir(mod)


def load_kind(kind, root):
    """Loads every module of kind under root; returns its functions, the
    modules that replaced nothing, and the load errors."""
    funcs, errors, names = [], [], []
    seen = set()
    target = {"modules": P.salt, "states": P.states, "utils": P.utils}.get(kind)
    for name, path, suffix in _files(root, kind):
        if suffix in (".zip", ".pyx"):
            modname = name
        else:
            modname = "salt.loaded.ext.%s.%s" % (TAGS.get(kind, kind), name)
        try:
            mod = _import(modname, name, path, suffix, kind, root)
            _inject(mod, kind)
            init = getattr(mod, "__init__", None)
            if inspect.isfunction(init):
                init(P.opts)
            vname = name
            virtual = getattr(mod, "__virtual__", None)
            if inspect.isfunction(virtual):
                virt = virtual()
                if isinstance(virt, tuple):
                    virt = virt[0]
                if virt is False or virt is None:
                    continue
                if isinstance(virt, str):
                    vname = virt
                elif hasattr(mod, "__virtualname__"):
                    vname = mod.__virtualname__
        except Exception as exc:  # noqa: BLE001
            errors.append({"path": path, "msg": "%s: %s" % (type(exc).__name__, exc),
                           "tb": format_tb()})
            continue
        P.modules[(kind, vname)] = mod
        mod_names = [vname] + list(getattr(mod, "__virtual_aliases__", ()) or ())
        names.extend(mod_names)
        alias = getattr(mod, "__func_alias__", {}) or {}
        for attr in _attrs(mod):
            if attr.startswith("_") and attr != "__call__":
                continue
            fn = getattr(mod, attr, None)
            if not _exported(fn, kind):
                continue
            for m in mod_names:
                full = "%s.%s" % (m, alias.get(attr, attr))
                if full in seen:
                    # an earlier module of the same name keeps it
                    continue
                seen.add(full)
                if target is not None:
                    dict.__setitem__(target, full, fn)
                if kind == "renderers" and attr == "render":
                    P.renderers[m] = fn
                funcs.append({"name": full, "doc": inspect.getdoc(fn) or "",
                              "kwargs": _takes_kwargs(fn), "params": _spec(fn)})
    return {"functions": funcs, "errors": errors, "modules": names}


_KWARGS = {}


def _takes_kwargs(fn):
    try:
        return _KWARGS[fn]
    except (KeyError, TypeError):
        pass
    ret = _takes_kwargs_uncached(fn)
    try:
        _KWARGS[fn] = ret
    except TypeError:
        pass
    return ret


def _takes_kwargs_uncached(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return True
    return any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values())


def _params(fn):
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _jsonable(v):
    return v is None or isinstance(v, (str, int, float, bool, list, dict))


def _spec(fn):
    """The named parameters of fn: name, required, default."""
    out = []
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return out
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        req = p.default is p.empty
        out.append({"name": p.name, "required": req,
                    "default": None if req or not _jsonable(p.default) else p.default})
    return out


def _find(kind, fun):
    table = {"exec": P.salt, "state": P.states, "utils": P.utils}[kind]
    if not dict.__contains__(table, fun):
        raise KeyError("'%s' is not available." % fun)
    return dict.__getitem__(table, fun)


def op_call(msg):
    fn = _find(msg.get("kind", "exec"), msg["fun"])
    kwargs = msg.get("kwargs") or {}
    if not _takes_kwargs(fn):
        kwargs = {k: v for k, v in kwargs.items() if not k.startswith("__pub_")}
    low = msg.get("low")
    if low is not None:
        mod = sys.modules.get(fn.__module__)
        if mod is not None:
            mod.__low__ = low
            mod.__env__ = low.get("__env__", "base")
            mod.__sls__ = low.get("__sls__")
            mod.__id__ = low.get("__id__")
            mod.__running__ = msg.get("running") or {}
            mod.__instance_id__ = id(mod)
    ret = fn(*msg.get("args") or [], **kwargs)
    if msg.get("kind") == "state" and not isinstance(ret, dict):
        # Salt's State.call hands a non-dict on untouched and its
        # OutputUnifier replaces it; brine only needs to know it was one
        return None
    return ret


def op_grains(msg):
    """Runs every public function of the custom grain modules in name
    order; returns the merged dict (non-dict returns ignored) and the
    functions that raised (Salt logs them and goes on)."""
    out, errors = {}, []
    for (kind, name), mod in sorted(P.modules.items(), key=lambda kv: kv[0][1]):
        if kind != "grains":
            continue
        for attr in sorted(_attrs(mod)):
            fn = getattr(mod, attr, None)
            if attr.startswith("_") or not _exported(fn, "grains"):
                continue
            try:
                params = _params(fn)
                if "grains" in params:
                    base = dict(P.grains)
                    base.update(out)
                    ret = fn(grains=base)
                else:
                    ret = fn()
            except Exception:  # noqa: BLE001
                errors.append({"key": "%s.%s" % (name, attr), "fn": repr(fn), "tb": format_tb()})
                continue
            if isinstance(ret, dict):
                out.update(ret)
    return {"grains": out, "errors": errors}


def format_tb():
    """The current exception's traceback without the worker's own frames
    (the user's code comes first, as in Salt's output)."""
    etype, exc, tb = sys.exc_info()
    while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
        tb = tb.tb_next
    return "".join(traceback.format_exception(etype, exc, tb))


def _sls_module(path, name, dunders):
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    for k, v in dunders.items():
        setattr(mod, k, v)
    return mod


def op_render_py(msg):
    """Salt's py renderer: import the file, set the dunders, call run()."""
    path = msg["path"]
    name = os.path.basename(path).rsplit(".", 1)[0]
    saltenv = msg.get("saltenv", "base")
    sls = msg.get("sls", "")
    pillar = msg.get("pillar")
    if pillar is None:
        pillar = P.pillar
    grains = msg.get("grains")
    if grains is None:
        grains = P.grains
    d = {"__salt__": P.salt, "salt": P.salt, "__grains__": grains, "grains": grains,
         "__pillar__": pillar, "pillar": pillar, "__opts__": P.opts, "opts": P.opts,
         "__env__": saltenv, "saltenv": saltenv, "__sls__": sls, "sls": sls}
    try:
        mod = _sls_module(path, name, d)
    except Exception as exc:  # noqa: BLE001
        return {"import_error": str(exc), "tb": format_tb()}
    if not hasattr(mod, "run"):
        return {"import_error": "Python SLS %s has no run() function" % path, "tb": ""}
    try:
        data = mod.run()
    except Exception:  # noqa: BLE001
        return {"run_error": format_tb()}
    return {"data": data}


def op_render(msg):
    """A custom renderer: render(data, saltenv, sls, argline=..., ...)."""
    fn = P.renderers[msg["name"]]
    kw = {"saltenv": msg.get("saltenv", "base"), "sls": msg.get("sls", "")}
    params = _params(fn)
    if "argline" in params or _takes_kwargs(fn):
        kw["argline"] = msg.get("argline", "")
    if not _takes_kwargs(fn):
        kw = {k: v for k, v in kw.items() if k in params}
    src = msg.get("src", "")
    return fn(io.StringIO(src), **kw)


def op_init(msg):
    for key in ("opts", "grains", "pillar"):
        if key in msg:
            target = getattr(P, key)
            target.clear()
            target.update(msg[key] or {})
    for key, table in (("exec", P.salt), ("state", P.states)):
        if key in msg.get("go", {}):
            table.go = set(msg["go"][key])
    return True


def op_load(msg):
    ret = load_kind(msg["kind"], msg["root"])
    if msg["kind"] == "modules":
        # a custom module replaces the builtin module of the same name
        for name in ret["modules"]:
            P.salt.go = {f for f in P.salt.go if not f.startswith(name + ".")}
    if msg["kind"] == "states":
        for name in ret["modules"]:
            P.states.go = {f for f in P.states.go if not f.startswith(name + ".")}
    return ret


def op_batch(msg):
    """Serves several requests in one round trip; each answer is a
    ret or exc reply of its own."""
    out = []
    for m in msg["ops"]:
        try:
            out.append({"op": "ret", "value": OPS[m["op"]](m)})
        except WorkerDied:
            raise
        except Exception as exc:  # noqa: BLE001
            out.append(_exc_reply(exc))
    return out



def _exc_reply(exc):
    cls = type(exc)
    name = cls.__name__
    if cls.__module__ not in ("builtins", "__main__"):
        name = cls.__module__ + "." + name
    tb = format_tb()
    return {"op": "exc", "type": name, "msg": str(exc), "tb": tb}


def serve(msg):
    try:
        value = OPS[msg["op"]](msg)
    except WorkerDied:
        raise
    except Exception as exc:  # noqa: BLE001
        send(_exc_reply(exc))
        return
    reply = {"op": "ret", "value": value}
    if msg.get("op") == "call" and msg.get("kind") == "exec" and "retcode" in P.context:
        # salt-call reads __context__["retcode"] after the function
        reply["retcode"] = P.context.pop("retcode")
    send(reply)


SALT = {"package": "", "warning": ""}


def _choose_salt(pydir, mode):
    """Puts the salt package the worker's modules import on sys.path:
    brine's compatibility package (in pydir), or with mode "installed"
    the Salt installed for this interpreter, when one is importable."""
    if mode == "installed":
        saved = list(sys.path)
        sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != os.path.abspath(pydir)]
        try:
            import salt.exceptions  # noqa: F401
            import salt
            SALT["package"] = os.path.dirname(salt.__file__)
            return
        except Exception as exc:  # noqa: BLE001
            for name in [k for k in sys.modules if k == "salt" or k.startswith("salt.")]:
                del sys.modules[name]
            sys.path[:] = saved
            SALT["warning"] = ("pyext_salt is 'installed' but %s cannot import Salt (%s: %s): "
                               "using brine's compatibility package" % (sys.executable, type(exc).__name__, exc))
    if pydir:
        sys.path.insert(0, pydir)
    try:
        import salt
        SALT["package"] = os.path.dirname(salt.__file__ or "")
    except ImportError:
        pass


def op_hello(msg):
    """The worker's first answer: which Python and which salt package."""
    return {"python": sys.executable, "version": sys.version.split()[0],
            "salt": SALT["package"], "warning": SALT["warning"]}


OPS = {"batch": op_batch, "call": op_call, "init": op_init, "load": op_load, "grains": op_grains,
       "render_py": op_render_py, "render": op_render, "hello": op_hello,
       "ping": lambda m: True}


def main():
    pydir = sys.argv[1] if len(sys.argv) > 1 else ""
    _choose_salt(pydir, os.environ.get("BRINE_PYEXT_SALT", ""))
    _ensure_salt_exceptions()
    while True:
        try:
            msg = recv()
        except WorkerDied:
            return
        try:
            serve(msg)
        except WorkerDied:
            return


if __name__ == "__main__":
    main()
