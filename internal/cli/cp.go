package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"brine/internal/config"
	"brine/internal/fleet/client"
	"brine/internal/fleet/proto"
	"brine/internal/output"
	"brine/internal/value"
)

// cpFlags are salt-cp's options.
type cpFlags struct {
	fleetFlags
	pcre, list, grain, pillar, compound, nodegroup, ipcidr bool

	chunked, noCompression bool
	timeout                int
	out                    string
	outIndent              int
	noColor, force         bool
}

func cpFlagSet(f *cpFlags) *pflag.FlagSet {
	fs := newFleetFlagSet("brine cp")
	f.add(fs)
	fs.BoolVarP(&f.pcre, "pcre", "E", false, "the target is a regular expression on minion ids")
	fs.BoolVarP(&f.list, "list", "L", false, "the target is a comma-separated list of minion ids")
	fs.BoolVarP(&f.grain, "grain", "G", false, "the target is a grain: key:value (glob)")
	fs.BoolVarP(&f.pillar, "pillar", "I", false, "the target is a pillar: key:value (glob)")
	fs.BoolVar(&f.compound, "compound", false, "the target is a compound expression")
	fs.BoolVarP(&f.nodegroup, "nodegroup", "N", false, "the target is a nodegroup")
	fs.BoolVarP(&f.ipcidr, "ipcidr", "S", false, "the target is an address or network")
	fs.BoolVarP(&f.chunked, "chunked", "C", false, "send files in chunks of salt_cp_chunk_size bytes: large files, directories (recursively) and empty directories")
	fs.BoolVarP(&f.noCompression, "no-compression", "n", false, "with --chunked, do not gzip the chunks")
	fs.IntVarP(&f.timeout, "timeout", "t", 5, "seconds to wait for the minions' returns before asking whether they still run the job")
	fs.StringVar(&f.out, "out", "", "outputter: json, yaml, nested (default), raw, txt, quiet")
	fs.IntVar(&f.outIndent, "out-indent", 0, "indentation of the json and yaml outputters")
	fs.BoolVar(&f.noColor, "no-color", false, "disable coloured output")
	fs.BoolVar(&f.force, "force-color", false, "force coloured output")
	return fs
}

func (f *cpFlags) tgtType() string {
	t := "glob"
	for _, o := range []struct {
		on   bool
		name string
	}{{f.pcre, "pcre"}, {f.list, "list"}, {f.grain, "grain"}, {f.pillar, "pillar"}, {f.compound, "compound"}, {f.nodegroup, "nodegroup"}, {f.ipcidr, "ipcidr"}} {
		if o.on {
			t = o.name
		}
	}
	return t
}

// copier is one brine cp run.
type copier struct {
	ctx     context.Context
	f       *cpFlags
	cfg     *config.Config
	c       *client.Client
	tgt     string
	tgtType string
	src     []string
	dest    string
	stdout  io.Writer
	stderr  io.Writer
}

// errExit ends a run with a message on stderr and an exit code, as
// salt-cp's sys.exit calls do.
type errExit struct {
	msg string
	rc  int
}

func (e *errExit) Error() string { return e.msg }

// Cp runs `brine cp TARGET SOURCE... DEST`, which mirrors salt-cp: the
// files are sent to the minions in the job itself (cp.recv), or, with
// --chunked, in chunks of salt_cp_chunk_size bytes, one job per chunk
// (cp.recv_chunked), which also copies directories.
func Cp(args []string, stdout, stderr io.Writer) int {
	var f cpFlags
	fs := cpFlagSet(&f)
	if rc, ok := parseCommand("cp", fs, args, stdout, stderr); !ok {
		return rc
	}
	rest := fs.Args()
	if len(rest) < 3 {
		fmt.Fprintln(stderr, "Usage: brine cp [options] TARGET SOURCE... DEST")
		fmt.Fprintln(stderr, "Error: Insufficient arguments")
		return exitUsage
	}
	cfg, err := loadMaster(&f.fleetFlags, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	var src []string
	for _, s := range rest[1 : len(rest)-1] {
		src = append(src, realpath(s))
	}
	c, err := client.Dial(cfg.Opts())
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	defer c.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cp := &copier{ctx: ctx, f: &f, cfg: cfg, c: c, tgt: rest[0], tgtType: f.tgtType(), src: src, dest: rest[len(rest)-1], stdout: stdout, stderr: stderr}
	var res *value.Map
	if f.chunked {
		res, err = cp.chunked()
	} else {
		res, err = cp.oldStyle()
	}
	if err != nil {
		if ee, ok := err.(*errExit); ok {
			if ee.rc == 1 {
				fmt.Fprintln(stdout, ee.msg) // salt-cp prints this one with print_cli
			} else {
				fmt.Fprintln(stderr, ee.msg)
			}
			return ee.rc
		}
		fmt.Fprintln(stderr, "Error:", err)
		return exitGeneric
	}
	out := f.out
	if out == "" {
		out = "nested"
	}
	o := &output.Options{Opts: cfg.Opts(), Indent: f.outIndent, Color: f.force && !f.noColor}
	fmt.Fprint(stdout, output.Default.Display(res, out, o))
	return exitOK
}

// realpath is os.path.realpath: absolute, with the links that exist
// resolved.
func realpath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	return abs
}

// cmd publishes fun with args to the target and waits for the returns:
// the minions that returned, by id.
func (cp *copier) cmd(fun string, args ...any) (map[string]any, error) {
	req := proto.PublishRequest{
		Tgt: cp.tgt, TgtType: cp.tgtType, Fun: fun,
		Arg: proto.ValueJSON{V: value.NewList(args...)}, Kwarg: proto.ValueJSON{V: value.NewMap(0)},
		User: os.Getenv("USER"), Timeout: float64(cp.f.timeout),
	}
	res, err := cp.c.Cmd(cp.ctx, req, client.WaitOptions{
		Timeout:          time.Duration(cp.f.timeout) * time.Second,
		GatherJobTimeout: time.Duration(optInt(cp.cfg.Opts(), "gather_job_timeout", 10)) * time.Second,
		User:             os.Getenv("USER"),
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]any, len(res.Returns))
	for id, r := range res.Returns {
		out[id] = r.Return.V
	}
	return out, nil
}

// oldStyle sends every file in one cp.recv job: files only, read whole.
func (cp *copier) oldStyle() (*value.Map, error) {
	files := value.NewMap(len(cp.src))
	for _, s := range cp.src {
		st, err := os.Stat(s)
		switch {
		case err != nil:
			continue // salt-cp leaves out what is neither a file nor a directory
		case st.IsDir():
			return nil, &errExit{fmt.Sprintf("%s is a directory, only files are supported in non-chunked mode. Use \"--chunked\" command line argument.", s), 1}
		case st.Mode().IsRegular():
			data, err := os.ReadFile(s)
			if err != nil {
				return nil, err
			}
			files.Set(s, string(data))
		}
	}
	got, err := cp.cmd("cp.recv", files, cp.dest)
	if err != nil {
		return nil, err
	}
	return sortedMap(got), nil
}

func sortedMap(m map[string]any) *value.Map {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := value.NewMap(len(ids))
	for _, id := range ids {
		out.Set(id, m[id])
	}
	return out
}

// listFiles walks the sources: the files with their modes (the last
// four octal digits of st_mode, as salt-cp sends them) and the empty
// directories.
func (cp *copier) listFiles() ([]string, map[string]int64, []string, error) {
	var files []string
	modes := map[string]int64{}
	var empty []string
	var walk func(p string) error
	walk = func(p string) error {
		st, err := os.Stat(p)
		if err != nil {
			return &errExit{p + " does not exist", 42}
		}
		if !st.IsDir() {
			if _, seen := modes[p]; !seen {
				files = append(files, p)
			}
			modes[p] = int64(st.Mode().Perm()) | unixSpecial(st.Mode())
			return nil
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return err
		}
		if len(ents) == 0 {
			empty = append(empty, p)
		}
		for _, e := range ents {
			if err := walk(filepath.Join(p, e.Name())); err != nil {
				return err
			}
		}
		return nil
	}
	for _, s := range cp.src {
		if err := walk(s); err != nil {
			return nil, nil, nil, err
		}
	}
	sort.Strings(empty)
	return files, modes, dedupe(empty), nil
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func unixSpecial(m os.FileMode) int64 {
	var n int64
	if m&os.ModeSetuid != 0 {
		n |= 0o4000
	}
	if m&os.ModeSetgid != 0 {
		n |= 0o2000
	}
	if m&os.ModeSticky != 0 {
		n |= 0o1000
	}
	return n
}

// remotePath is where a source file lands on the minions: dest itself,
// or below it when dest is a directory; a file found inside a source
// directory keeps its path below that directory's name.
func (cp *copier) remotePath(fn string, destIsDir bool) string {
	for _, s := range cp.src {
		if s == fn {
			if destIsDir {
				return filepath.Join(cp.dest, filepath.Base(fn))
			}
			return cp.dest
		}
	}
	for _, s := range cp.src {
		rel, err := filepath.Rel(s, fn)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		return filepath.Join(cp.dest, filepath.Base(s), rel)
	}
	return ""
}

// chunked sends each file in chunks of salt_cp_chunk_size bytes, one
// cp.recv_chunked job per chunk (gzip-compressed unless -n), then
// creates the empty directories.
func (cp *copier) chunked() (*value.Map, error) {
	files, modes, empty, err := cp.listFiles()
	if err != nil {
		return nil, err
	}
	gz := !cp.f.noCompression
	destIsDir := len(empty) > 0 || len(files) > 1 || strings.HasSuffix(cp.dest, "/")
	size := int(optInt(cp.cfg.Opts(), "salt_cp_chunk_size", 98304))
	if size <= 0 {
		size = 98304
	}
	minions, err := cp.c.Resolve(cp.tgt, cp.tgtType)
	if err != nil {
		return nil, err
	}
	ret := map[string]*value.Map{}
	set := func(id, path string, v any) {
		if ret[id] == nil {
			ret[id] = value.NewMap(0)
		}
		ret[id].Set(path, v)
	}
	for _, fn := range files {
		remote := cp.remotePath(fn, destIsDir)
		f, err := os.Open(fn)
		if err != nil {
			return nil, err
		}
		failed := map[string]any{}
		buf := make([]byte, size)
		for index := 1; ; index++ {
			n, rerr := io.ReadFull(f, buf)
			if n == 0 {
				break
			}
			chunk := buf[:n]
			if gz {
				if chunk, err = gzipChunk(chunk); err != nil {
					f.Close()
					return nil, err
				}
			}
			got, err := cp.cmd("cp.recv_chunked", remote, base64.StdEncoding.EncodeToString(chunk), index > 1, gz, modes[fn])
			if err != nil {
				f.Close()
				return nil, err
			}
			if len(got) == 0 {
				partial := ""
				if index > 1 {
					partial = " File partially transferred."
				}
				for _, id := range minions {
					set(id, remote, fmt.Sprintf("Publish failed.%s It may be necessary to decrease salt_cp_chunk_size (current value: %d)", partial, size))
				}
				break
			}
			for id, r := range got {
				set(id, remote, r)
				if _, seen := failed[id]; r != true && !seen {
					failed[id] = r
				}
			}
			if rerr != nil {
				break
			}
		}
		f.Close()
		for id, msg := range failed {
			set(id, remote, msg)
		}
	}
	for _, d := range empty {
		remote := cp.remotePath(d, destIsDir)
		got, err := cp.cmd("cp.recv_chunked", remote, nil)
		if err != nil {
			return nil, err
		}
		for id, r := range got {
			set(id, remote, r)
		}
	}
	out := map[string]any{}
	for id, m := range ret {
		out[id] = m
	}
	return sortedMap(out), nil
}

// gzipChunk compresses one chunk on its own, as salt's compress_file does.
func gzipChunk(b []byte) ([]byte, error) {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
