// Package reactor is Salt's reactor on brine's event bus: the master's
// reactor option maps tag globs to SLS files; for each event whose tag
// matches, those files are rendered (with tag and data in the template
// context), compiled into reactions and run: local.<fun> publishes a job,
// runner.<fun> calls a runner, wheel.<fun> acts on the master's key
// store, caller.<fun> runs an execution function on the master host.
//
// Reactions run on a bounded pool of workers (reactor_worker_threads)
// fed by a bounded queue (reactor_worker_hwm), never on the goroutine
// that delivers events; an event arriving to a full queue is dropped and
// logged. Events fired by the reactor's own runner and wheel calls
// (user "Reactor") are not reacted to, as in Salt.
package reactor

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"brine/internal/diag"
	"brine/internal/execmod"
	"brine/internal/fleet/events"
	"brine/internal/fleet/keys"
	"brine/internal/grains"
	"brine/internal/render"
	"brine/internal/value"
)

// EventUser is the user of the reactor's runner and wheel calls; events
// carrying it are not reacted to.
const EventUser = "Reactor"

// Publisher publishes a job to the minions a target selects (the
// master's Publish).
type Publisher interface {
	PublishJob(tgt, tgtType, fun string, arg []any, kwarg *value.Map, user string) (jid string, minions []string, err error)
}

// RunnerCaller runs a runner function on the master (salt-run's
// functions). The master wires one when a runner registry exists.
type RunnerCaller interface {
	CallRunner(ctx context.Context, fun string, args []any, kwargs *value.Map) (any, error)
}

// Config is what a Reactor works with.
type Config struct {
	// Opts are the master options: reactor, renderer,
	// renderer_whitelist/blacklist, reactor_worker_threads and
	// reactor_worker_hwm.
	Opts *value.Map
	// Files are the master's file roots (for salt:// reactor files and
	// template includes); nil means only local paths.
	Files execmod.FileSource
	// Publisher runs local.* reactions.
	Publisher Publisher
	// Keys is the master's key store (wheel.key.*); KeysChanged is called
	// after a wheel function changed it.
	Keys        *keys.Store
	KeysChanged func() error
	// Fire fires an event on the bus (wheel.key.* fires salt/key).
	Fire func(tag string, data *value.Map)
	// Runner runs runner.* reactions; nil logs that runners are
	// unavailable.
	Runner RunnerCaller
	// Grains are the master host's grains for templates and caller.*
	// reactions; nil collects them on first use.
	Grains *value.Map
	Log    *slog.Logger
}

// Reactor reacts to events.
type Reactor struct {
	cfg   Config
	log   *slog.Logger
	queue chan events.Event
	wg    sync.WaitGroup
	stop  chan struct{}
	once  sync.Once
	user  string

	grainsOnce sync.Once
	ctx        context.Context // cancelled by Close
	cancel     context.CancelFunc
}

// New prepares a reactor; Start starts its workers.
func New(cfg Config) *Reactor {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	hwm := optInt(cfg.Opts, "reactor_worker_hwm", 10000)
	if hwm <= 0 {
		hwm = 10000
	}
	u := "root"
	if cu, err := user.Current(); err == nil && cu.Username != "" {
		u = cu.Username
	}
	if su := os.Getenv("SUDO_USER"); su != "" && u == "root" {
		u = "sudo_" + su
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Reactor{cfg: cfg, log: cfg.Log.With("component", "reactor"), queue: make(chan events.Event, hwm), stop: make(chan struct{}), user: u, ctx: ctx, cancel: cancel}
}

// Start starts reactor_worker_threads workers.
func (r *Reactor) Start() {
	n := optInt(r.cfg.Opts, "reactor_worker_threads", 10)
	if n <= 0 {
		n = 10
	}
	for range n {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for {
				select {
				case <-r.stop:
					return
				case ev := <-r.queue:
					r.React(ev)
				}
			}
		}()
	}
}

// Close stops the workers, cancelling the runner calls under way, and
// waits a little for the reactions running to end.
func (r *Reactor) Close() {
	r.once.Do(func() {
		close(r.stop)
		r.cancel()
	})
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		r.log.Warn("reactions still running at shutdown")
	}
}

// Enabled reports whether the reactor option maps any tag.
func (r *Reactor) Enabled() bool { return len(r.reactMap()) > 0 }

// Handle queues ev for the workers when some reactor matches its tag. It
// never blocks: with the queue full the event is dropped and logged.
func (r *Reactor) Handle(ev events.Event) {
	if u, _ := ev.Data.Get("user"); u == EventUser {
		return
	}
	if len(r.Reactors(ev.Tag)) == 0 {
		return
	}
	select {
	case r.queue <- ev:
	default:
		r.log.Error("reactor queue full (reactor_worker_hwm); event not reacted to", "tag", ev.Tag)
	}
}

// reactMap is the reactor option: a list of one-key mappings, or the
// path of a YAML file holding that list.
func (r *Reactor) reactMap() []*value.Map {
	v, _ := r.cfg.Opts.Get("reactor")
	var items []any
	switch x := v.(type) {
	case *value.List:
		items = x.Items
	case string:
		l, err := loadReactMap(x)
		if err != nil {
			r.log.Error(err.Error())
			return nil
		}
		items = l
	}
	var out []*value.Map
	for _, it := range items {
		if m, ok := it.(*value.Map); ok && m.Len() == 1 {
			out = append(out, m)
		}
	}
	return out
}

// Reactors lists the reactor files mapped to tag, in configuration order.
func (r *Reactor) Reactors(tag string) []string {
	var out []string
	for _, m := range r.reactMap() {
		m.Range(func(k, v any) bool {
			if !events.Match(value.Str(k), tag) {
				return true
			}
			switch x := v.(type) {
			case string:
				out = append(out, x)
			case *value.List:
				for _, e := range x.Items {
					out = append(out, value.Str(e))
				}
			}
			return true
		})
	}
	return out
}

// React compiles and runs the reactions to ev, logging failures.
func (r *Reactor) React(ev events.Event) {
	files := r.Reactors(ev.Tag)
	if len(files) == 0 {
		return
	}
	chunks, errs := r.Compile(ev.Tag, ev.Data, files)
	for _, d := range errs {
		r.logDiag("Unable to render reactions for event "+ev.Tag, d)
	}
	if len(errs) > 0 {
		return // Salt runs nothing when any reactor file has an error
	}
	for _, c := range chunks {
		if d := r.Run(c); d != nil {
			r.logDiag("Reactor failed", d)
		}
	}
}

func (r *Reactor) logDiag(msg string, d *diag.Diagnostic) {
	args := []any{"err", d.Error()}
	if d.Detail != "" {
		args = append(args, "detail", d.Detail)
	}
	r.log.Error(msg, args...)
}

// Chunk is one reaction: Salt's low chunk of a reactor SLS.
type Chunk struct {
	ID    string
	State string // local, runner, wheel or caller (cmd is local)
	Fun   string
	Name  string
	File  string     // the reactor file
	Line  int        // the line of the ID in it (0 when unknown)
	Order float64    // the order Salt sorts by, set by Compile
	Args  *value.Map // the other keys: tgt, tgt_type, arg, kwarg, args, ...
	order any        // the order key as written
}

func (c Chunk) where() *diag.Range {
	return &diag.Range{File: c.File, Start: diag.Pos{Line: c.Line}}
}

// reaction files: local paths (globs), or salt:// paths read from the
// master's file roots.
type reactFile struct {
	path string
	src  []byte
}

func (r *Reactor) readFiles(ref string) ([]reactFile, *diag.Diagnostic) {
	if rel, ok := strings.CutPrefix(ref, "salt://"); ok {
		if r.cfg.Files == nil {
			return nil, &diag.Diagnostic{Summary: fmt.Sprintf("Can not render SLS %s: no file roots", ref)}
		}
		data, local, err := r.cfg.Files.ReadFile("base", rel)
		if err != nil {
			return nil, &diag.Diagnostic{Summary: fmt.Sprintf("Can not render SLS %s. File missing or not found.", ref)}
		}
		if local == "" {
			local = ref
		}
		return []reactFile{{path: local, src: data}}, nil
	}
	matches, _ := filepath.Glob(ref)
	if len(matches) == 0 {
		return nil, &diag.Diagnostic{Summary: fmt.Sprintf("Can not render SLS %s. File missing or not found.", ref)}
	}
	var out []reactFile
	for _, p := range matches {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, &diag.Diagnostic{Summary: err.Error(), Subject: &diag.Range{File: p}}
		}
		out = append(out, reactFile{path: p, src: data})
	}
	return out, nil
}

// Compile renders the reactor files with tag and data and returns their
// reactions in Salt's order (by order, then state, name and function).
func (r *Reactor) Compile(tag string, data *value.Map, files []string) ([]Chunk, []*diag.Diagnostic) {
	type entry struct {
		body *value.Map
		file string
		line int
	}
	high := value.NewMap(0)
	var errs []*diag.Diagnostic
	for _, ref := range files {
		rfs, d := r.readFiles(ref)
		if d != nil {
			errs = append(errs, d)
			continue
		}
		for _, f := range rfs {
			out, err := r.render(f, tag, data)
			if err != nil {
				errs = append(errs, renderDiag(f.path, err))
				continue
			}
			m, ok := out.(*value.Map)
			if !ok {
				errs = append(errs, &diag.Diagnostic{Summary: "the reactor file does not render to a mapping", Subject: &diag.Range{File: f.path}})
				continue
			}
			m.Range(func(k, v any) bool {
				id := value.Str(k)
				body, isMap := v.(*value.Map)
				if !isMap {
					errs = append(errs, &diag.Diagnostic{Summary: fmt.Sprintf("ID '%s' in SLS '%s' is not a dictionary", id, f.path), Subject: &diag.Range{File: f.path, Start: diag.Pos{Line: idLine(f.src, id)}}})
					return true
				}
				high.Set(id, &entry{body: body, file: f.path, line: idLine(f.src, id)})
				return true
			})
		}
	}
	var chunks []Chunk
	high.Range(func(k, v any) bool {
		e := v.(*entry)
		cs, ds := compileID(value.Str(k), e.body, e.file, e.line)
		chunks = append(chunks, cs...)
		errs = append(errs, ds...)
		return true
	})
	if len(errs) > 0 {
		return nil, errs
	}
	orderChunks(chunks)
	return chunks, nil
}

// render runs one reactor file through its render pipeline.
func (r *Reactor) render(f reactFile, tag string, data *value.Map) (any, error) {
	ctx := r.execContext()
	rc := &render.Context{
		Path:    f.path,
		Saltenv: "base",
		Salt:    ctx.Callable,
		Grains:  ctx.Grains,
		Pillar:  value.NewMap(0),
		Opts:    ctx.Opts,
		Vars:    value.MapOf("tag", tag, "data", data),
		Services: map[string]any{
			"execmod": ctx,
		},
	}
	if r.cfg.Files != nil {
		rc.Loader = r.cfg.Files
	}
	out, err := render.Render(f.src, rc, render.Options{
		Default:   optString(r.cfg.Opts, "renderer", "jinja|yaml"),
		Whitelist: optStrings(r.cfg.Opts, "renderer_whitelist"),
		Blacklist: optStrings(r.cfg.Opts, "renderer_blacklist"),
	})
	return out, err
}

// execContext is the master minion's context: the master's options seen
// as a local minion's, for templates' salt[...] and caller reactions.
func (r *Reactor) execContext() *execmod.Context {
	ctx := execmod.NewContext()
	ctx.Opts = r.cfg.Opts.Copy()
	ctx.Opts.Set("file_client", "local")
	ctx.Opts.Set("__role", "minion")
	r.grainsOnce.Do(func() {
		if r.cfg.Grains == nil {
			g, err := grains.Collect(r.cfg.Opts)
			if err != nil || g == nil {
				g = value.NewMap(0)
			}
			r.cfg.Grains = g
		}
	})
	ctx.Grains = r.cfg.Grains
	if r.cfg.Files != nil {
		ctx.Files = r.cfg.Files
	}
	return ctx
}

func renderDiag(file string, err error) *diag.Diagnostic {
	if re, ok := err.(*render.Error); ok {
		d := re.Diagnostic()
		if d.Subject == nil || d.Subject.File == "" {
			d.Subject = &diag.Range{File: file, Start: diag.Pos{Line: re.Line}}
		}
		return d
	}
	return &diag.Diagnostic{Summary: "Failed to render: " + err.Error(), Subject: &diag.Range{File: file}}
}

// idLine finds the line of a top-level ID in the source (its first line
// starting with "ID:"); 0 when the ID is made by a template.
func idLine(src []byte, id string) int {
	for i, l := range strings.Split(string(src), "\n") {
		for _, form := range []string{id + ":", `"` + id + `":`, "'" + id + "':"} {
			if strings.HasPrefix(l, form) {
				return i + 1
			}
		}
	}
	return 0
}

// compileID turns one ID's body into chunks, as Salt's compile_high_data
// does with reactor SLS: each key "state.fun" (or "state" with the
// function as a bare list item) with a list of one-key mappings.
func compileID(id string, body *value.Map, file string, line int) ([]Chunk, []*diag.Diagnostic) {
	var out []Chunk
	var errs []*diag.Diagnostic
	at := &diag.Range{File: file, Start: diag.Pos{Line: line}}
	body.Range(func(k, v any) bool {
		key := value.Str(k)
		if strings.HasPrefix(key, "__") {
			return true
		}
		state, fun, _ := strings.Cut(key, ".")
		args := value.NewMap(0)
		var items []any
		switch x := v.(type) {
		case nil:
		case *value.List:
			items = x.Items
		default:
			errs = append(errs, &diag.Diagnostic{Summary: fmt.Sprintf("The type %s in %s is not formatted as a list", key, id), Subject: at})
			return true
		}
		for _, it := range items {
			switch x := it.(type) {
			case string:
				if fun != "" {
					errs = append(errs, &diag.Diagnostic{Summary: fmt.Sprintf("Too many functions declared in state '%s' in SLS '%s'", state, file), Subject: at})
					return true
				}
				fun = x
			case *value.Map:
				x.Range(func(ak, av any) bool { args.Set(value.Str(ak), av); return true })
			}
		}
		if fun == "" {
			errs = append(errs, &diag.Diagnostic{Summary: fmt.Sprintf("No function declared in state '%s' in SLS '%s'", state, file), Subject: at})
			return true
		}
		if state == "cmd" {
			state = "local"
		}
		name := id
		if n, ok := args.Get("name"); ok {
			name = value.Str(n)
		}
		c := Chunk{ID: id, State: state, Fun: fun, Name: name, File: file, Line: line, Args: args}
		c.order, _ = args.Get("order")
		out = append(out, c)
		return true
	})
	return out, errs
}

// orderChunks is Salt's Compiler.order_chunks: a chunk without an order
// (or with one that is not a number, "first" and "last" aside) goes
// after every numbered one, "first" before all, "last" and negative
// orders after all; ties sort by state, name and function.
func orderChunks(cs []Chunk) {
	limit := 1.0
	for _, c := range cs {
		if n, ok := c.order.(int64); ok && float64(n) > limit-1 && n > 0 {
			limit = float64(n) + 100
		}
	}
	for i := range cs {
		switch x := cs[i].order.(type) {
		case int64:
			cs[i].Order = float64(x)
		case float64:
			cs[i].Order = x
		case string:
			switch x {
			case "first":
				cs[i].Order = 0
			case "last":
				cs[i].Order = limit + 1000000
			default:
				cs[i].Order = limit
			}
		default:
			cs[i].Order = limit
		}
		if cs[i].Order < 0 {
			cs[i].Order += limit + 1000000
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].Order != cs[j].Order {
			return cs[i].Order < cs[j].Order
		}
		return cs[i].State+cs[i].Name+cs[i].Fun < cs[j].State+cs[j].Name+cs[j].Fun
	})
}

func optInt(opts *value.Map, k string, def int) int {
	v, _ := opts.Get(k)
	switch x := v.(type) {
	case int64:
		return int(x)
	case float64:
		return int(x)
	}
	return def
}

func optString(opts *value.Map, k, def string) string {
	if v, ok := opts.Get(k); ok {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return def
}

func optStrings(opts *value.Map, k string) []string {
	v, _ := opts.Get(k)
	l, ok := v.(*value.List)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l.Items))
	for _, e := range l.Items {
		out = append(out, value.Str(e))
	}
	return out
}
