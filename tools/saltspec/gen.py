#!/usr/bin/env python3
"""Generate brine's table of Salt's execution and state functions.

Reads a Salt source tree (salt/modules/*.py and salt/states/*.py) with the
ast module only -- nothing of Salt is imported or executed -- and writes,
for every public function Salt's loader would expose, the argument list of
its Python signature. internal/saltspec embeds the result.

Rerun it (from the repository root) against a Salt 3006 checkout; the
shipped table came from openSUSE/salt, branch openSUSE/release/3006.0:

    mkdir -p /tmp/salt3006
    git --git-dir=/path/to/salt.git archive <3006 ref> \
        salt/modules salt/states salt/utils salt/version.py | tar -x -C /tmp/salt3006
    python3 tools/saltspec/gen.py --src /tmp/salt3006 \
        --origin "openSUSE/salt openSUSE/release/3006.0 <commit>" \
        > internal/saltspec/salt3006.jsonl

then `go test ./internal/saltspec -run TestSupportTable -update` to refresh
docs/support.md, and `go test ./internal/saltspec` (its TestGenerator
checks this script against the fixture tree in internal/saltspec/testdata).
salt/utils is read only to follow **kwargs into helpers such as
salt.utils.state.get_sls_opts.

Output: JSON lines. The first line is a header object ("salt", "origin");
each further line is one module of one kind, with its keys in this order
(internal/saltspec indexes the lines by their prefix without parsing them):

    {"kind":"exec"|"state","module":NAME,"sources":[FILE...],"functions":{FUN:[VARIANT...]}}

A VARIANT is one signature of the function:
    "args":    positional parameters; a parameter without a default is its
               name, one with a default is [name, default as Python source]
    "kwonly":  keyword-only parameters, in the same form
    "varargs": the name of *args, "kwargs": the name of **kwargs
    "src":     the files that define this signature (only when the module
               has several source files, e.g. pkg from aptpkg.py, yumpkg.py)
Empty lists and absent star parameters are left out.

How names are found, as Salt's loader (salt/loader/lazy.py) does it:
  * module name: __virtualname__, else a string literal that __virtual__
    returns, else the file name; __virtual_aliases__ add more names; files
    sharing a name are merged and their file names remembered;
  * functions: module-level def (also inside if/try/with blocks), names
    bound to a local function, and namespaced_function(f, globals()) copies
    of functions imported from other salt.modules/salt.states files,
    alias_function(f, "name") copies;
    __load__ or __all__ (a literal list) restrict them; names starting with
    "_" are private (except __call__); __func_alias__ renames;
  * a def decorated with @depends("name") (salt.utils.decorators.depends)
    whose name is bound nowhere at the module's top level, without a
    fallback_function or a retcode check, is left out: Salt's loader
    unloads it on every machine (test.missing_func). Dependencies that
    may or may not be met (an import in a try block, a HAS_X flag) keep
    the function.
"""

import argparse
import ast
import json
import os
import sys


def literal_strings(node):
    """The strings of a literal list/tuple node, or None."""
    if isinstance(node, (ast.List, ast.Tuple)):
        out = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                out.append(e.value)
            else:
                return None
        return out
    return None


def walk_level(body):
    """Yield the statements of a module body, descending into the blocks
    that run at import time (if, try, with), but not into functions or
    classes."""
    for st in body:
        yield st
        if isinstance(st, ast.If):
            yield from walk_level(st.body)
            yield from walk_level(st.orelse)
        elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
            yield from walk_level(st.body)
            for h in st.handlers:
                yield from walk_level(h.body)
            yield from walk_level(st.orelse)
            yield from walk_level(st.finalbody)
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            yield from walk_level(st.body)


def param(arg, default):
    if default is None:
        return arg.arg
    return [arg.arg, ast.unparse(default)]


def kwargs_reads(fn, find, seen=None):
    """The keys a def with **kwargs reads from it: kwargs.get("k"),
    kwargs["k"], "k" in kwargs, and what the functions it hands **kwargs to
    take or read in turn (find(call_func_node) -> (def node or None, the
    find of the def's file))."""
    kw = fn.args.kwarg.arg if fn.args.kwarg is not None else None
    if kw is None:
        return set()
    seen = seen if seen is not None else set()
    if id(fn) in seen:
        return set()
    seen.add(id(fn))
    keys = set()

    def is_kw(node):
        return isinstance(node, ast.Name) and node.id == kw

    for n in ast.walk(fn):
        if isinstance(n, ast.Call):
            f = n.func
            if (
                isinstance(f, ast.Attribute)
                and is_kw(f.value)
                and f.attr in ("get", "pop", "setdefault")
                and n.args
                and isinstance(n.args[0], ast.Constant)
            ):
                keys.add(n.args[0].value)
            if any(k.arg is None and is_kw(k.value) for k in n.keywords):
                callee, callee_find = find(f)
                if callee is not None:
                    given = {k.arg for k in n.keywords if k.arg}
                    a = callee.args
                    pos = list(a.posonlyargs) + list(a.args)
                    for p in pos[len(n.args):] + list(a.kwonlyargs):
                        if p.arg not in given:
                            keys.add(p.arg)
                    keys |= kwargs_reads(callee, callee_find, seen)
        elif isinstance(n, ast.Subscript) and is_kw(n.value) and isinstance(n.slice, ast.Constant):
            keys.add(n.slice.value)
        elif isinstance(n, ast.Compare) and isinstance(n.left, ast.Constant):
            if any(is_kw(c) for c in n.comparators):
                keys.add(n.left.value)
    return {k for k in keys if isinstance(k, str)}


def signature(fn, find=None):
    """The variant (see the module doc) of a def node."""
    a = fn.args
    positional = list(a.posonlyargs) + list(a.args)
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    sig = {}
    args = [param(p, d) for p, d in zip(positional, defaults)]
    if args:
        sig["args"] = args
    kwonly = [param(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    if kwonly:
        sig["kwonly"] = kwonly
    if a.vararg is not None:
        sig["varargs"] = a.vararg.arg
    if a.kwarg is not None:
        sig["kwargs"] = a.kwarg.arg
        if find is not None:
            reads = sorted(kwargs_reads(fn, find) - {p if isinstance(p, str) else p[0] for p in args + kwonly})
            if reads:
                sig["reads"] = reads
    return sig


def is_copy_call(node):
    """namespaced_function(X, globals()) or alias_function(X, "name"), also
    called through a module (salt.utils.functools.alias_function)."""
    if not isinstance(node, ast.Call) or not node.args:
        return False
    f = node.func
    name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
    return name in ("namespaced_function", "alias_function")


def bound_names(st):
    """The names a top-level statement binds (not descending into blocks:
    walk_level yields their statements too)."""
    out = set()

    def targets(t):
        if isinstance(t, ast.Name):
            out.add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                targets(e)
        elif isinstance(t, ast.Starred):
            targets(t.value)

    if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out.add(st.name)
    elif isinstance(st, ast.Import):
        for al in st.names:
            out.add(al.asname or al.name.split(".")[0])
    elif isinstance(st, ast.ImportFrom):
        for al in st.names:
            out.add(al.asname or al.name)
    elif isinstance(st, ast.Assign):
        for t in st.targets:
            targets(t)
    elif isinstance(st, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        targets(st.target)
    elif isinstance(st, (ast.With, ast.AsyncWith)):
        for it in st.items:
            if it.optional_vars is not None:
                targets(it.optional_vars)
    elif isinstance(st, ast.Try) or type(st).__name__ == "TryStar":
        for h in st.handlers:
            if h.name:
                out.add(h.name)
    return out


class SourceFile:
    """One parsed salt/modules or salt/states file."""

    def __init__(self, path, trees=None):
        self.path = path
        self.trees = trees
        self.file = os.path.basename(path)
        self.stem = self.file[:-3]
        with open(path, encoding="utf-8") as f:
            self.tree = ast.parse(f.read(), filename=path)
        self.virtualname = None
        self._virtual_literal = None
        self.aliases = []
        self.func_alias = {}
        self.load = None
        self.defs = {}  # python name -> [def node]
        self.binds = []  # (python name, local function name)
        self.namespaced = []  # (python name, source module dotted, function)
        self.imports = {}  # local name -> (dotted module, name)
        self.bound = set()  # every name bound at the top level
        self._scan()

    def _scan(self):
        for st in walk_level(self.tree.body):
            self.bound |= bound_names(st)
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.defs.setdefault(st.name, []).append(st)
                if st.name == "__virtual__" and self.virtualname is None:
                    self._virtual_return(st)
            elif isinstance(st, ast.ImportFrom) and st.module and st.level == 0:
                for al in st.names:
                    self.imports[al.asname or al.name] = (st.module, al.name)
            elif isinstance(st, ast.Assign):
                self._assign(st)

    def _virtual_return(self, fn):
        for node in ast.walk(fn):
            if (
                isinstance(node, ast.Return)
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                self._virtual_literal = node.value.value
                return

    def _assign(self, st):
        for target in st.targets:
            if not isinstance(target, ast.Name):
                continue
            name, v = target.id, st.value
            # `a = b = [...]`: every target gets the value.
            while isinstance(v, ast.Assign):
                v = v.value
            if name == "__virtualname__" and isinstance(v, ast.Constant):
                if self.virtualname is None and isinstance(v.value, str):
                    self.virtualname = v.value
            elif name == "__virtual_aliases__":
                self.aliases = literal_strings(v) or []
            elif name == "__func_alias__" and isinstance(v, ast.Dict):
                for k, val in zip(v.keys, v.values):
                    if isinstance(k, ast.Constant) and isinstance(val, ast.Constant):
                        self.func_alias[k.value] = val.value
            elif name in ("__load__", "__all__"):
                names = literal_strings(v)
                if names is not None and (name == "__load__" or self.load is None):
                    self.load = names
            elif is_copy_call(v):
                src = v.args[0]
                if isinstance(src, ast.Name):
                    mod, fun = self.imports.get(src.id, (None, src.id))
                    self.namespaced.append((name, mod, fun))
                elif isinstance(src, ast.Attribute):
                    self.namespaced.append((name, ast.unparse(src.value), src.attr))
            elif isinstance(v, ast.Name):
                self.binds.append((name, v.id))

    def find(self, func):
        """The def a call's function node names, and its file's find."""
        if isinstance(func, ast.Name):
            if func.id in self.defs:
                return self.defs[func.id][0], self.find
            if func.id in self.imports and self.trees is not None:
                mod, name = self.imports[func.id]
                return self.trees.lookup(mod, name)
        elif isinstance(func, ast.Attribute) and self.trees is not None:
            return self.trees.lookup(ast.unparse(func.value), func.attr)
        return None, None

    def sig(self, node):
        return signature(node, self.find)

    def never_loaded(self, fn):
        """True when a @depends decorator of fn names a global the module
        never binds, with nothing to fall back on (see the module doc)."""
        for d in fn.decorator_list:
            if not isinstance(d, ast.Call):
                continue
            f = d.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if name != "depends":
                continue
            if any(k.arg in ("fallback_function", "retcode", "nonzero_retcode") for k in d.keywords):
                continue
            for a in d.args:
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value not in self.bound:
                    return True
        return False

    def names(self):
        if self.virtualname is not None:
            first = self.virtualname
        elif self._virtual_literal:
            first = self._virtual_literal
        else:
            first = self.stem
        return [first] + [a for a in self.aliases if a != first]


def public(pyname):
    return not pyname.startswith("_") or pyname == "__call__"


def functions(sf, resolve):
    """public name -> [variant] of one source file."""
    found = {}  # python name -> [variant]
    for pyname, nodes in sf.defs.items():
        loaded = [n for n in nodes if not sf.never_loaded(n)]
        if loaded:
            found[pyname] = [sf.sig(n) for n in loaded]
    for pyname, local in sf.binds:
        if local in sf.defs and pyname not in sf.defs:
            found[pyname] = [sf.sig(n) for n in sf.defs[local]]
    for pyname, mod, fun in sf.namespaced:
        sigs = resolve(mod, fun) if mod else None
        if sigs is None and fun in sf.defs:
            sigs = [sf.sig(n) for n in sf.defs[fun]]
        if sigs:
            found[pyname] = sigs
    out = {}
    for pyname, sigs in found.items():
        if not public(pyname):
            continue
        if sf.load is not None and pyname not in sf.load:
            continue
        out[sf.func_alias.get(pyname, pyname)] = sigs
    return out


class Trees:
    """Parsed files of a Salt tree by dotted module name, read on demand."""

    def __init__(self, src):
        self.src = src
        self.files = {}

    def get(self, dotted):
        if dotted not in self.files:
            path = os.path.join(self.src, *dotted.split(".")) + ".py"
            sf = None
            if dotted.startswith("salt.") and os.path.isfile(path):
                sf = SourceFile(path, self)
            self.files[dotted] = sf
        return self.files[dotted]

    def lookup(self, dotted, fun):
        """(def node, its file's find) of salt.x.y's fun, or (None, None)."""
        sf = self.get(dotted)
        if sf is None or fun not in sf.defs:
            return None, None
        return sf.defs[fun][0], sf.find


def collect(src):
    """[(kind, module, sources, {fun: [variant]})] for a Salt tree."""
    kinds = (("exec", "modules"), ("state", "states"))
    trees = Trees(src)
    files = {}
    for _, sub in kinds:
        d = os.path.join(src, "salt", sub)
        for fn in sorted(os.listdir(d)):
            if fn.endswith(".py") and fn != "__init__.py":
                files[(sub, fn[:-3])] = trees.get("salt.%s.%s" % (sub, fn[:-3]))

    def resolve(dotted, fun):
        sf = trees.get(dotted) if dotted.split(".")[:2] in (["salt", "modules"], ["salt", "states"]) else None
        if sf is not None and fun in sf.defs:
            return [sf.sig(n) for n in sf.defs[fun]]
        return None

    out = []
    for kind, sub in kinds:
        merged = {}  # module -> (sources, {fun: [(variant, [src])]})
        for (s, _), sf in sorted(files.items()):
            if s != sub:
                continue
            funs = functions(sf, resolve)
            for mod in sf.names():
                sources, table = merged.setdefault(mod, ([], {}))
                sources.append(sf.file)
                for fun, sigs in funs.items():
                    variants = table.setdefault(fun, [])
                    for sig in sigs:
                        for v, vsrc in variants:
                            if v == sig:
                                if sf.file not in vsrc:
                                    vsrc.append(sf.file)
                                break
                        else:
                            variants.append((sig, [sf.file]))
        for mod in sorted(merged):
            sources, table = merged[mod]
            funs = {}
            for fun in sorted(table):
                vs = []
                for sig, vsrc in table[fun]:
                    v = dict(sig)
                    if len(sources) > 1:
                        v["src"] = vsrc
                    vs.append(v)
                funs[fun] = vs
            out.append((kind, mod, sources, funs))
    return out


def salt_version(src):
    """The version in salt/version.py's __saltstack_version__ fallback, or ""."""
    path = os.path.join(src, "salt", "version.py")
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    best = ""
    for node in ast.walk(tree):
        # SaltVersion("Sulfur", info=3006, released=True): the newest released.
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "SaltVersion":
            kw = {k.arg: k.value for k in node.keywords}
            rel = kw.get("released")
            info = kw.get("info")
            if isinstance(rel, ast.Constant) and rel.value is True and isinstance(info, ast.Constant):
                best = str(info.value)
    return best


def dump(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", required=True, help="root of a Salt source tree (holds salt/modules)")
    ap.add_argument("--origin", default="", help="where the tree came from (recorded in the header)")
    a = ap.parse_args(argv)
    lines = [dump({"salt": salt_version(a.src), "origin": a.origin})]
    for kind, mod, sources, funs in collect(a.src):
        lines.append(dump({"kind": kind, "module": mod, "sources": sources, "functions": funs}))
    sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
