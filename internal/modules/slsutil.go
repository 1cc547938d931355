package modules

// slsutil.go is salt/modules/slsutil.py: slsutil.renderer, which runs a
// file or string through the render pipeline, merging and serializing
// helpers, banners, and lookups in the state tree.

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/render"
	"brine/internal/value"
)

func init() {
	execmod.Register("slsutil.renderer", slsutilRenderer,
		"Render a file (salt:// URL or absolute path) or string through a renderer pipeline (default_renderer, default jinja|yaml; a #! first line overrides it). Extra keyword arguments are template variables.")
	execmod.Register("slsutil.update", slsutilUpdate, "Merge upd recursively into dest (changed in place and returned); merge_lists concatenates lists.")
	execmod.Register("slsutil.merge", slsutilMerge, "Merge obj_b into obj_a with a strategy (smart, recurse, aggregate, overwrite, list).")
	execmod.Register("slsutil.merge_all", slsutilMergeAll, "Merge a list of dicts into each other in order.")
	execmod.Register("slsutil.serialize", slsutilSerialize, "Serialize obj with a serializer (json, yaml, python); extra keyword arguments are its options.")
	execmod.Register("slsutil.deserialize", slsutilDeserialize, "Deserialize stream_or_string with a serializer (json, yaml).")
	execmod.Register("slsutil.banner", slsutilBanner, "Return a comment block saying the file is managed by Salt (width, commentchar, borderchar, blockstart, blockend, title, text, newline).")
	execmod.Register("slsutil.boolstr", slsutilBoolstr, "Return true (default 'true') when value is truthy, else false ('false').")
	execmod.Register("slsutil.file_exists", slsutilExists("file_exists", "cp.list_master"), "True when path is a file of the state tree of saltenv.")
	execmod.Register("slsutil.dir_exists", slsutilExists("dir_exists", "cp.list_master_dirs"), "True when path is a directory of the state tree of saltenv.")
	execmod.Register("slsutil.path_exists", slsutilPathExists, "True when path is a file or directory of the state tree of saltenv.")
	execmod.Register("slsutil.findup", slsutilFindup, "Return the first of filenames found in startpath or one of its parents in the state tree.")
}

func slsutilBoolstr(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("boolstr", args, kwargs, execmod.Req("value"), execmod.Opt("true", "true"), execmod.Opt("false", "false"))
	if err != nil {
		return nil, err
	}
	if value.Truthy(v[0]) {
		return v[1], nil
	}
	return v[2], nil
}

// pyWrap is textwrap.wrap for plain text: words (runs of non-space) fill
// lines of width, longer words are cut.
func pyWrap(text string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		for len(w) > width {
			if cur != "" {
				room := width - len(cur) - 1
				if room > 0 {
					lines = append(lines, cur+" "+w[:room])
					w = w[room:]
				} else {
					lines = append(lines, cur)
				}
				cur = ""
				continue
			}
			lines = append(lines, w[:width])
			w = w[width:]
		}
		switch {
		case w == "":
		case cur == "":
			cur = w
		case len(cur)+1+len(w) <= width:
			cur += " " + w
		default:
			lines = append(lines, cur)
			cur = w
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

// pyCenter is str.center.
func pyCenter(s string, width int) string {
	n := width - len(s)
	if n <= 0 {
		return s
	}
	left := n/2 + (n & width & 1)
	return strings.Repeat(" ", left) + s + strings.Repeat(" ", n-left)
}

func slsutilBanner(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("banner", args, kwargs, execmod.Opt("width", int64(72)), execmod.Opt("commentchar", "#"),
		execmod.Opt("borderchar", "#"), execmod.Opt("blockstart", nil), execmod.Opt("blockend", nil), execmod.Opt("title", nil),
		execmod.Opt("text", nil), execmod.Opt("newline", false))
	if err != nil {
		return nil, err
	}
	width, _ := v[0].(int64)
	cc, bc := value.Str(v[1]), value.Str(v[2])
	title := "THIS FILE IS MANAGED BY SALT - DO NOT EDIT"
	if v[5] != nil {
		title = value.Str(v[5])
	}
	text := "The contents of this file are managed by Salt. Any changes to this file may be overwritten automatically and without warning."
	if v[6] != nil {
		text = value.Str(v[6])
	}
	ledge := strings.TrimRight(cc, " \t\n\r\v\f")
	redge := strings.TrimSpace(cc)
	lgutter, rgutter := ledge+" ", " "+redge
	tw := int(width) - len(lgutter) - len(rgutter)
	if tw <= 0 {
		return nil, &execmod.InvocationError{Msg: "Width is too small to render banner"}
	}
	if len(bc) > 1 {
		bc = bc[:1]
	}
	border := cc + strings.Repeat(bc, max(0, int(width)-len(ledge)-len(redge))) + redge
	spacer := cc + strings.Repeat(" ", max(0, int(width)-len(cc)*2)) + cc
	var block []string
	if v[3] != nil {
		block = append(block, value.Str(v[3]))
	}
	block = append(block, border, spacer)
	for _, l := range pyWrap(title, tw) {
		block = append(block, lgutter+pyCenter(l, tw)+rgutter)
	}
	block = append(block, spacer)
	for _, l := range pyWrap(text, tw) {
		block = append(block, lgutter+l+strings.Repeat(" ", tw-len(l))+rgutter)
	}
	block = append(block, border)
	if v[4] != nil {
		block = append(block, value.Str(v[4]))
	}
	out := strings.Join(block, "\n")
	if value.Truthy(v[7]) {
		out += "\n"
	}
	return out, nil
}

// slsutilTreeHas reports whether path is listed by lister (cp.list_master
// or cp.list_master_dirs) for saltenv; the lists are kept for the run.
func slsutilTreeHas(ctx *execmod.Context, lister, path, saltenv string) (bool, error) {
	key := "slsutil." + lister + "." + saltenv
	list, ok := ctx.Cache().Get(key).(*value.List)
	if !ok {
		r, err := ctx.Call(lister, []any{saltenv}, nil)
		if err != nil {
			return false, err
		}
		list, _ = r.(*value.List)
		if list == nil {
			list = value.NewList()
		}
		ctx.Cache().Store(key, list)
	}
	for _, x := range list.Items {
		if x == path {
			return true, nil
		}
	}
	return false, nil
}

func slsutilExists(fun, lister string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", "base"))
		if err != nil {
			return nil, err
		}
		return slsutilTreeHas(ctx, lister, value.Str(v[0]), value.Str(v[1]))
	}
}

func slsutilPathIn(ctx *execmod.Context, path, saltenv string) (bool, error) {
	if ok, err := slsutilTreeHas(ctx, "cp.list_master", path, saltenv); ok || err != nil {
		return ok, err
	}
	return slsutilTreeHas(ctx, "cp.list_master_dirs", path, saltenv)
}

func slsutilPathExists(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("path_exists", args, kwargs, execmod.Req("path"), execmod.Opt("saltenv", "base"))
	if err != nil {
		return nil, err
	}
	return slsutilPathIn(ctx, value.Str(v[0]), value.Str(v[1]))
}

func slsutilFindup(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("findup", args, kwargs, execmod.Req("startpath"), execmod.Req("filenames"), execmod.Opt("saltenv", "base"))
	if err != nil {
		return nil, err
	}
	saltenv := value.Str(v[2])
	start := ""
	if value.Truthy(v[0]) {
		start = path.Clean(value.Str(v[0]))
		ok, err := slsutilPathIn(ctx, start, saltenv)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, &execmod.InvocationError{Msg: "Starting path not found in the state tree: " + start}
		}
	}
	var names []string
	switch f := v[1].(type) {
	case string:
		names = []string{f}
	case *value.List:
		for _, x := range f.Items {
			names = append(names, value.Str(x))
		}
	default:
		return nil, &execmod.InvocationError{Msg: "Filenames argument must be a string or list of strings"}
	}
	for {
		for _, n := range names {
			full := n
			if start != "" {
				full = path.Join(start, n)
			}
			ok, err := slsutilPathIn(ctx, full, saltenv)
			if err != nil {
				return nil, err
			}
			if ok {
				return full, nil
			}
		}
		if start == "" {
			return nil, execmod.Errorf("File pattern(s) not found in path ancestry")
		}
		start = path.Dir(start)
		if start == "." || start == "/" {
			start = ""
		}
	}
}

// compileTemplateArgs are compile_template's own parameters: they do not
// reach the renderers as template variables.
var compileTemplateArgs = map[string]bool{
	"saltenv": true, "sls": true, "input_data": true, "context": true, "env": true,
	"renderers": true, "default": true, "blacklist": true, "whitelist": true,
	"tmplpath": true, "argline": true, "template": true,
}

func slsutilRenderer(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("renderer", args, kwargs,
		execmod.Opt("path", nil), execmod.Opt("string", nil), execmod.Opt("default_renderer", "jinja|yaml"))
	if err != nil {
		return nil, err
	}
	path, str, pipe := v[0], v[1], execmod.String(v[2])
	if !value.Truthy(path) && !value.Truthy(str) {
		return nil, &execmod.InvocationError{Msg: "Must pass either path or string"}
	}
	saltenv := "base"
	if s, ok := rest.Get("saltenv"); ok && value.Truthy(s) {
		saltenv = execmod.String(s)
	}
	sls := ""
	if s, ok := rest.Get("sls"); ok && s != nil {
		sls = execmod.String(s)
	}
	vars := value.NewMap(rest.Len())
	rest.Range(func(k, val any) bool {
		if ks, _ := k.(string); !compileTemplateArgs[ks] {
			vars.Set(k, val)
		}
		return true
	})
	if c, ok := rest.Get("context"); ok {
		if cm, isMap := c.(*value.Map); isMap {
			vars.Update(cm)
		}
	}

	rc := ctx.RenderContext(saltenv)
	rc.SLS, rc.HasSLS = sls, true
	rc.Vars = vars
	opts := render.Options{
		Default:   pipe,
		Whitelist: optStrings(ctx.Opts, "renderer_whitelist"),
		Blacklist: optStrings(ctx.Opts, "renderer_blacklist"),
	}
	var src []byte
	if value.Truthy(path) {
		p := execmod.String(path)
		data, local, rel, err := getURL(ctx, p, saltenv)
		if err != nil {
			var ce *execmod.CommandExecutionError
			if errors.As(err, &ce) {
				return nil, err
			}
			slog.Error(fmt.Sprintf("Unable to fetch file %s from saltenv %s.", p, saltenv))
			return value.NewMap(0), nil
		}
		src, rc.Path, rc.Source = data, local, rel
	} else {
		src = []byte(execmod.String(str))
		rc.Path = ":string:"
		opts.FromString = true
	}
	out, err := render.Render(src, rc, opts)
	var unknown *render.UnknownRendererError
	if errors.As(err, &unknown) {
		slog.Error(fmt.Sprintf("The renderer %q is not available", unknown.Pipe))
		return value.NewMap(0), nil
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// getURL reads what cp.get_url fetches: a salt:// file of saltenv (its
// local path being the minion's cached copy) or an absolute local path.
func getURL(ctx *execmod.Context, u, saltenv string) (data []byte, local, rel string, err error) {
	if r, env, ok := fileserver.ParseURL(u); ok {
		if env != "" {
			saltenv = env
		}
		if ctx.Files == nil {
			return nil, "", "", fs.ErrNotExist
		}
		data, local, err := ctx.Files.ReadFile(saltenv, r)
		return data, local, r, err
	}
	p := u
	if after, ok := strings.CutPrefix(u, "file://"); ok {
		p = after
	}
	if !filepath.IsAbs(p) {
		return nil, "", "", &execmod.CommandExecutionError{Msg: fmt.Sprintf("Path '%s' is not absolute", p)}
	}
	data, err = os.ReadFile(p)
	return data, p, "", err
}

func optStrings(opts *value.Map, key string) []string {
	v, _ := opts.Get(key)
	l, ok := v.(*value.List)
	if !ok {
		return nil
	}
	out := make([]string, 0, l.Len())
	for _, it := range l.Items {
		out = append(out, value.Str(it))
	}
	return out
}

// errNonDictUpdate is dictupdate.update's TypeError for non-mappings.
var errNonDictUpdate = &pyTypeError{msg: "Cannot update using non-dict types in dictupdate.update()"}

func slsutilUpdate(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("update", args, kwargs, execmod.Req("dest"), execmod.Req("upd"),
		execmod.Opt("recursive_update", true), execmod.Opt("merge_lists", false))
	if err != nil {
		return nil, err
	}
	dest, ok1 := v[0].(*value.Map)
	upd, ok2 := v[1].(*value.Map)
	if !ok1 || !ok2 {
		return nil, errNonDictUpdate
	}
	if !value.Truthy(v[2]) {
		upd.Range(func(k, val any) bool {
			dest.Set(k, val)
			return true
		})
		return dest, nil
	}
	return value.Update(dest, upd, value.Truthy(v[3])), nil
}

// mergeOne is dictupdate.merge of two mappings, warning on an unknown
// strategy as Salt does.
func mergeOne(a, b any, strategy, renderer string, mergeLists bool) (*value.Map, error) {
	am, ok1 := a.(*value.Map)
	bm, ok2 := b.(*value.Map)
	if !ok1 || !ok2 {
		return nil, errNonDictUpdate
	}
	if value.ResolveStrategy(strategy, renderer) != strategy && strategy != value.StrategySmart {
		slog.Warn(fmt.Sprintf("Unknown merging strategy '%s', fallback to recurse", strategy))
	}
	return value.Merge(am, bm, strategy, renderer, mergeLists), nil
}

func slsutilMerge(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("merge", args, kwargs, execmod.Req("obj_a"), execmod.Req("obj_b"),
		execmod.Opt("strategy", "smart"), execmod.Opt("renderer", "yaml"), execmod.Opt("merge_lists", false))
	if err != nil {
		return nil, err
	}
	return mergeOne(v[0], v[1], execmod.String(v[2]), execmod.String(v[3]), value.Truthy(v[4]))
}

func slsutilMergeAll(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("merge_all", args, kwargs, execmod.Req("lst"),
		execmod.Opt("strategy", "smart"), execmod.Opt("renderer", "yaml"), execmod.Opt("merge_lists", false))
	if err != nil {
		return nil, err
	}
	var items []any
	switch l := v[0].(type) {
	case *value.List:
		items = l.Items
	case value.Tuple:
		items = l
	case *value.Map:
		items = l.Keys()
	default:
		return nil, &pyTypeError{msg: fmt.Sprintf("'%s' object is not iterable", value.TypeName(v[0]))}
	}
	ret := value.NewMap(0)
	for _, obj := range items {
		if ret, err = mergeOne(ret, obj, execmod.String(v[1]), execmod.String(v[2]), value.Truthy(v[3])); err != nil {
			return nil, err
		}
	}
	return ret, nil
}

// serializerOptions drops Salt's private keyword arguments (clean_kwargs).
func serializerOptions(rest *value.Map) *value.Map {
	out := value.NewMap(rest.Len())
	rest.Range(func(k, val any) bool {
		if ks, _ := k.(string); !strings.HasPrefix(ks, "__") {
			out.Set(k, val)
		}
		return true
	})
	return out
}

func slsutilSerialize(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("serialize", args, kwargs, execmod.Req("serializer"), execmod.Req("obj"))
	if err != nil {
		return nil, err
	}
	f, err := serializerFunc(execmod.String(v[0]), "serialize")
	if err != nil {
		return nil, err
	}
	return f(v[1], serializerOptions(rest))
}

func slsutilDeserialize(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, rest, err := execmod.Bind("deserialize", args, kwargs, execmod.Req("serializer"), execmod.Req("stream_or_string"))
	if err != nil {
		return nil, err
	}
	f, err := serializerFunc(execmod.String(v[0]), "deserialize")
	if err != nil {
		return nil, err
	}
	return f(v[1], serializerOptions(rest))
}
