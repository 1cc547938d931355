package modules

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/fileserver"
	"brine/internal/value"
)

// cpContext is a run over local file roots under d/srv (base) and
// d/srv-dev (dev), caching to d/cache, as `brine call --local` runs.
func cpContext(t *testing.T, d string) *execmod.Context {
	t.Helper()
	for p, s := range map[string]string{
		"srv/web/index.html":    "<h1>hi</h1>\n",
		"srv/web/conf/app.conf": "port=80\n",
		"srv/web/conf/x.ini":    "[x]\n",
		"srv/webby.txt":         "not in web/\n",
		"srv/motd.j2":           "Hello {{ grains['os'] }} {{ who }}\n",
		"srv/path.txt":          "by path\n",
		"srv-dev/motd.j2":       "dev motd\n",
		"local/source.txt":      "local file\n",
	} {
		full := filepath.Join(d, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := testContext()
	ctx.Opts.Set("cachedir", filepath.Join(d, "cache"))
	ctx.Opts.Set("hash_type", "sha256")
	ctx.Files = &execmod.CachedFiles{
		Src:      fileserver.FromDirs(map[string][]string{"base": {filepath.Join(d, "srv")}, "dev": {filepath.Join(d, "srv-dev")}}),
		Cachedir: filepath.Join(d, "cache"),
	}
	return ctx
}

func runCpSteps(t *testing.T, ctx *execmod.Context, d string, steps []fileStep) {
	t.Helper()
	sub := func(v any) any {
		if s, ok := v.(string); ok {
			return strings.ReplaceAll(s, "{d}", d)
		}
		return v
	}
	for i, s := range steps {
		args := make([]any, len(s.args))
		for j, a := range s.args {
			args[j] = sub(a)
		}
		kw := make([]any, len(s.kw))
		for j, a := range s.kw {
			kw[j] = sub(a)
		}
		got, err := ctx.Call(s.fun, args, value.MapOf(kw...))
		label := s.fun + " " + value.Repr(args)
		if s.err != "" {
			if err == nil || err.Error() != strings.ReplaceAll(s.err, "{d}", d) {
				t.Errorf("step %d %s: error %v, want %q", i, label, err, strings.ReplaceAll(s.err, "{d}", d))
			}
			continue
		}
		if err != nil {
			t.Errorf("step %d %s: %v", i, label, err)
			continue
		}
		if want := strings.ReplaceAll(s.want, "{d}", d); value.Repr(got) != want {
			t.Errorf("step %d %s:\n got %s\nwant %s", i, label, value.Repr(got), want)
		}
		if s.after != nil {
			s.after(t, d)
		}
	}
}

func TestCpFileClient(t *testing.T) {
	d := t.TempDir()
	ctx := cpContext(t, d)
	if err := os.MkdirAll(filepath.Join(d, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("served " + r.URL.Path))
	}))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	runCpSteps(t, ctx, d, []fileStep{
		// get_file: to a file, into a directory, with makedirs, from
		// another saltenv, missing.
		{fun: "cp.get_file", args: []any{"salt://web/index.html", "{d}/out/index.html"}, want: "'{d}/out/index.html'", after: wantFile("out/index.html", "<h1>hi</h1>\n")},
		{fun: "cp.get_file", args: []any{"salt://web/conf/app.conf", "{d}/out/"}, want: "'{d}/out/app.conf'", after: wantFile("out/app.conf", "port=80\n")},
		{fun: "cp.get_file", args: []any{"salt://web/conf/app.conf", "{d}/out/new/deep/app.conf"}, want: "False"},
		{fun: "cp.get_file", args: []any{"salt://web/conf/app.conf", "{d}/out/new/deep/app.conf"}, kw: []any{"makedirs", true}, want: "'{d}/out/new/deep/app.conf'", after: wantFile("out/new/deep/app.conf", "port=80\n")},
		{fun: "cp.get_file", args: []any{"salt://motd.j2?saltenv=dev", "{d}/out/motd"}, want: "'{d}/out/motd'", after: wantFile("out/motd", "dev motd\n")},
		{fun: "cp.get_file", args: []any{"salt://motd.j2", "{d}/out/motd2"}, kw: []any{"saltenv", "dev"}, want: "'{d}/out/motd2'", after: wantFile("out/motd2", "dev motd\n")},
		{fun: "cp.get_file", args: []any{"salt://nope", "{d}/out/nope"}, want: "''"},
		{fun: "cp.get_file", args: []any{"salt://{{ 'path' }}.txt", "{d}/out/{{ grains['os'] }}.txt"}, kw: []any{"template", "jinja"}, want: "'{d}/out/Debian.txt'", after: wantFile("out/Debian.txt", "by path\n")},
		// get_dir: the directory itself lands under dest; webby.txt is
		// not in web/.
		{fun: "cp.get_dir", args: []any{"salt://web", "{d}/tree"}, want: "['{d}/tree/web/conf/app.conf', '{d}/tree/web/conf/x.ini', '{d}/tree/web/index.html']", after: wantFile("tree/web/conf/app.conf", "port=80\n")},
		// get_template renders with the run's grains and the kwargs.
		{fun: "cp.get_template", args: []any{"salt://motd.j2", "{d}/out/motd.txt"}, kw: []any{"who", "admin"}, want: "'{d}/out/motd.txt'", after: wantFile("out/motd.txt", "Hello Debian admin\n")},
		{fun: "cp.get_template", args: []any{"salt://motd.j2", "{d}/out/x/motd.txt"}, kw: []any{"who", "x"}, want: "''"},
		{fun: "cp.get_template", args: []any{"salt://nope.j2", "{d}/out/n.txt"}, want: "''"},
		// The cache: cachedir/files/<saltenv>/<path>.
		{fun: "cp.is_cached", args: []any{"salt://web/index.html"}, want: "''"},
		{fun: "cp.cache_file", args: []any{"salt://web/index.html"}, want: "'{d}/cache/files/base/web/index.html'", after: wantFile("cache/files/base/web/index.html", "<h1>hi</h1>\n")},
		{fun: "cp.cache_file", args: []any{"salt://motd.j2"}, kw: []any{"saltenv", "dev"}, want: "'{d}/cache/files/dev/motd.j2'"},
		{fun: "cp.cache_file", args: []any{"salt://nope"}, want: "False"},
		{fun: "cp.cache_file", args: []any{"{d}/local/source.txt"}, want: "'{d}/local/source.txt'"},
		{fun: "cp.cache_file", args: []any{"relative/x"}, err: "Path 'relative/x' is not absolute"},
		{fun: "cp.is_cached", args: []any{"salt://web/index.html"}, want: "'{d}/cache/files/base/web/index.html'"},
		{fun: "cp.cache_files", args: []any{"salt://web/index.html,salt://nope"}, want: "['{d}/cache/files/base/web/index.html', False]"},
		{fun: "cp.cache_dir", args: []any{"salt://web"}, kw: []any{"exclude_pat", "*.ini"}, want: "['{d}/cache/files/base/web/conf/app.conf', '{d}/cache/files/base/web/index.html']"},
		{fun: "cp.cache_dir", args: []any{"salt://web"}, kw: []any{"include_pat", "E@\\.ini$"}, want: "['{d}/cache/files/base/web/conf/x.ini']"},
		{fun: "cp.cache_dir", args: []any{"/web"}, err: "Unsupported path: /web"},
		{fun: "cp.cache_dir", args: []any{"salt://web"}, kw: []any{"include_empty", true}, err: "cp.cache_dir: include_empty is not supported: brine's file server lists no empty directories"},
		{fun: "cp.cache_dest", args: []any{"salt://a/b.txt?saltenv=dev"}, want: "'{d}/cache/files/dev/a/b.txt'"},
		{fun: "cp.cache_dest", args: []any{"https://user:pw@example.com/f.tgz"}, want: "'{d}/cache/extrn_files/base/example.com/f.tgz'"},
		// no localfiles dir: Salt lists the whole cachedir (other saltenvs too)
		{fun: "cp.list_minion", want: "['{d}/cache/files/base/motd.j2', '{d}/cache/files/base/web/conf/app.conf', '{d}/cache/files/base/web/conf/x.ini', '{d}/cache/files/base/web/index.html', '{d}/cache/files/dev/motd.j2']"},
		// Listings of the file server.
		{fun: "cp.list_master", want: "['motd.j2', 'path.txt', 'web/conf/app.conf', 'web/conf/x.ini', 'web/index.html', 'webby.txt']"},
		// The prefix is stripped of slashes first, as Salt's file server does.
		{fun: "cp.list_master", kw: []any{"prefix", "web/"}, want: "['web/conf/app.conf', 'web/conf/x.ini', 'web/index.html', 'webby.txt']"},
		{fun: "cp.list_master", kw: []any{"prefix", "web/c"}, want: "['web/conf/app.conf', 'web/conf/x.ini']"},
		{fun: "cp.list_master", kw: []any{"saltenv", "dev"}, want: "['motd.j2']"},
		{fun: "cp.envs", want: "['base', 'dev']"},
		// hash_file: the minion's hash_type; {} for a missing salt://
		// file, Salt's ({}, None) for a missing local one.
		// (the file server's order for salt://, the client's for a local path, as Salt 3006 answers)
		{fun: "cp.hash_file", args: []any{"salt://path.txt"}, want: "{'hash_type': 'sha256', 'hsum': '33cadb139701a8717eb676c784983c11d042f52d4c0ca8831ec65c56f98c026a'}"},
		{fun: "cp.hash_file", args: []any{"salt://nope"}, want: "{}"},
		{fun: "cp.hash_file", args: []any{"{d}/out/index.html"}, want: "{'hsum': '737e6daf77521604fc482aa91e8bed8c47f4815c624e61e49c45ecbb5832f708', 'hash_type': 'sha256'}"},
		{fun: "cp.hash_file", args: []any{"{d}/nope"}, want: "[{}, None]"},
		// get_url: salt://, local paths, http.
		{fun: "cp.get_url", args: []any{"salt://path.txt", "{d}/out/p.txt"}, want: "'{d}/out/p.txt'", after: wantFile("out/p.txt", "by path\n")},
		{fun: "cp.get_url", args: []any{"salt://path.txt", nil}, want: "'by path\\n'"},
		{fun: "cp.get_url", args: []any{"file://{d}/local/source.txt"}, want: "'{d}/local/source.txt'"},
		{fun: "cp.get_url", args: []any{"{d}/local/source.txt", nil}, want: "'local file\\n'"},
		{fun: "cp.get_url", args: []any{srv.URL + "/a/b.txt", "{d}/out/b.txt"}, want: "'{d}/out/b.txt'", after: wantFile("out/b.txt", "served /a/b.txt")},
		{fun: "cp.get_url", args: []any{srv.URL + "/a/c.txt", "{d}/out/"}, want: "'{d}/out/c.txt'", after: wantFile("out/c.txt", "served /a/c.txt")},
		{fun: "cp.get_url", args: []any{srv.URL + "/a/b.txt"}, want: "'{d}/cache/extrn_files/base/" + host + "/a/b.txt'"},
		{fun: "cp.get_url", args: []any{srv.URL + "/q", nil}, want: "'served /q'"},
		{fun: "cp.get_url", args: []any{srv.URL + "/missing", "{d}/out/m"}, err: "HTTP error 404 reading " + srv.URL + "/missing: Nothing matches the given URI"},
		{fun: "cp.get_url", args: []any{srv.URL + "/a/b.txt", "{d}/none/b.txt"}, want: "''"},
	})
	// A fresh copy is not rewritten when it already matches.
	st1, _ := os.Stat(filepath.Join(d, "cache/files/base/web/index.html"))
	if _, err := ctx.Call("cp.cache_file", []any{"salt://web/index.html"}, value.NewMap(0)); err != nil {
		t.Fatal(err)
	}
	st2, _ := os.Stat(filepath.Join(d, "cache/files/base/web/index.html"))
	if !os.SameFile(st1, st2) {
		t.Error("an up-to-date cached file was written again")
	}
}

func gz(t *testing.T, s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

func TestCpRecvAndPush(t *testing.T) {
	d := t.TempDir()
	ctx := cpContext(t, d)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	runCpSteps(t, ctx, d, []fileStep{
		{fun: "cp.recv_chunked", args: []any{"{d}/rx/sub/f.txt", gz(t, "part1,"), false, true, int64(0o640)}, want: "True", after: wantMode("rx/sub/f.txt", 0o640)},
		{fun: "cp.recv_chunked", args: []any{"{d}/rx/sub/f.txt", gz(t, "part2")}, kw: []any{"append", true}, want: "True", after: wantFile("rx/sub/f.txt", "part1,part2")},
		{fun: "cp.recv_chunked", args: []any{"{d}/rx/plain", b64("raw")}, kw: []any{"compressed", false}, want: "True", after: wantFile("rx/plain", "raw")},
		{fun: "cp.recv_chunked", args: []any{"{d}/rx/emptydir", nil}, want: "True"},
		{fun: "cp.recv_chunked", args: []any{"{d}/rx/plain", nil}, want: "'Path exists and is a file'"},
		{fun: "cp.recv", args: []any{value.MapOf("/src/a.conf", "A=1\n"), "{d}/rx/"}, want: "{'{d}/rx/a.conf': True}", after: wantFile("rx/a.conf", "A=1\n")},
		{fun: "cp.recv", args: []any{value.MapOf("/src/a.conf", "A=2\n"), "{d}/rx/renamed"}, want: "{'{d}/rx/renamed': True}", after: wantFile("rx/renamed", "A=2\n")},
		{fun: "cp.recv", args: []any{value.MapOf("/src/a.conf", "x"), "{d}/nodir/x/y"}, want: "'Destination unavailable'"},
		// push: Salt's refusals come before any master is asked.
		{fun: "cp.push", args: []any{"relative/file"}, want: "False"},
		{fun: "cp.push", args: []any{"{d}/../etc/passwd"}, want: "False"},
		{fun: "cp.push", args: []any{"{d}/nope"}, want: "False"},
		{fun: "cp.push", args: []any{"{d}/local/source.txt"}, kw: []any{"upload_path", "../x"}, err: "cp.push sends files to a master: it needs a minion of a brine master (not --local)"},
		{fun: "cp.push_dir", args: []any{"relative"}, want: "False"},
	})
	if ctx.Retcode() != 0 {
		t.Errorf("retcode %d after successful receives", ctx.Retcode())
	}
	if _, err := ctx.Call("cp.recv_chunked", []any{filepath.Join(d, "rx/plain/under-a-file"), b64("x")}, value.MapOf("compressed", false)); err != nil {
		t.Fatal(err)
	}
	if ctx.Retcode() != 1 {
		t.Errorf("a failed receive left retcode %d", ctx.Retcode())
	}
}

// cp.cache_master, cache_local_file, list_master_symlinks and stat_file,
// with the answers salt-call --local gave for the same tree.
func TestCpCacheAndStat(t *testing.T) {
	d := t.TempDir()
	ctx := cpContext(t, d)
	srv := filepath.Join(d, "srv")
	for link, target := range map[string]string{"l.txt": "path.txt", "web/l2": "../path.txt", "out.txt": "../local/source.txt", "broken": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(srv, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(filepath.Join(srv, "path.txt"), 0o640); err != nil {
		t.Fatal(err)
	}
	runCpSteps(t, ctx, d, []fileStep{
		// As Salt's roots backend, a target starting with ".." is taken
		// from the link itself, so out.txt stays inside; a broken link
		// counts.
		{fun: "cp.list_master_symlinks", want: "{'broken': 'nowhere', 'l.txt': 'path.txt', 'out.txt': '../local/source.txt', 'web/l2': '../path.txt'}"},
		{fun: "cp.list_master_symlinks", kw: []any{"prefix", "web"}, want: "{'web/l2': '../path.txt'}"},
		{fun: "cp.list_master_symlinks", kw: []any{"saltenv", "dev"}, want: "{}"},
		// get_file_str goes through the cache (Salt 3006: is_cached then
		// answers the cached copy)
		{fun: "cp.is_cached", args: []any{"salt://path.txt"}, want: "''"},
		{fun: "cp.get_file_str", args: []any{"salt://path.txt"}, want: "'by path\\n'"},
		{fun: "cp.is_cached", args: []any{"salt://path.txt"}, want: "'{d}/cache/files/base/path.txt'"},
		{fun: "cp.stat_file", args: []any{"salt://path.txt"}, want: "'0640'"},
		{fun: "cp.stat_file", args: []any{"salt://l.txt"}, kw: []any{"octal", false}, want: "33184"},
		{fun: "cp.stat_file", args: []any{"salt://motd.j2?saltenv=dev"}, want: "'0644'"},
		{fun: "cp.stat_file", args: []any{"salt://nope"}, want: "None"},
		{fun: "cp.stat_file", args: []any{"{d}/local/source.txt"}, want: "'0644'"},
		{fun: "cp.stat_file", args: []any{"{d}/nonexistent"}, want: "None"},
		{fun: "cp.cache_local_file", args: []any{"{d}/nonexistent"}, want: "''"},
		{fun: "cp.cache_local_file", args: []any{"{d}/local/source.txt"}, want: "'{d}/cache/localfiles{d}/local/source.txt'", after: wantFile("cache/localfiles"+d+"/local/source.txt", "local file\n")},
		{fun: "cp.cache_local_file", args: []any{"{d}/local/source.txt"}, want: "'{d}/cache/localfiles{d}/local/source.txt'", after: func(t *testing.T, d string) {
			// A changed file is copied again.
			os.WriteFile(filepath.Join(d, "local/source.txt"), []byte("changed\n"), 0o644)
		}},
		{fun: "cp.cache_local_file", args: []any{"{d}/local/source.txt"}, want: "'{d}/cache/localfiles{d}/local/source.txt'", after: wantFile("cache/localfiles"+d+"/local/source.txt", "changed\n")},
		{fun: "cp.cache_master", kw: []any{"saltenv", "dev"}, want: "['{d}/cache/files/dev/motd.j2']", after: wantFile("cache/files/dev/motd.j2", "dev motd\n")},
		{fun: "cp.cache_master", want: "[False, '{d}/cache/files/base/l.txt', '{d}/cache/files/base/motd.j2', False, '{d}/cache/files/base/path.txt', '{d}/cache/files/base/web/conf/app.conf', '{d}/cache/files/base/web/conf/x.ini', '{d}/cache/files/base/web/index.html', '{d}/cache/files/base/web/l2', '{d}/cache/files/base/webby.txt']",
			after: wantFile("cache/files/base/web/l2", "by path\n")},
	})
}
