package modules

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

const hostsSample = `# The static table
127.0.0.1	localhost
::1	localhost ip6-localhost  # v6
10.0.0.5	web web.example.com
10.0.0.5	www
10.0.0.9	db	# the database

`

func hostsCtx(t *testing.T, content string) (*execmod.Context, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hosts")
	if content != "" {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := testContext()
	ctx.Opts.Set("hosts.file", path)
	return ctx, path
}

func TestHostsRead(t *testing.T) {
	ctx, _ := hostsCtx(t, hostsSample)
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"hosts.list_hosts", nil, "{'comment-0': ['# The static table'], '127.0.0.1': {'aliases': ['localhost']}, " +
			"'::1': {'aliases': ['localhost', 'ip6-localhost'], 'comment': 'v6'}, '10.0.0.5': {'aliases': ['web', 'web.example.com', 'www']}, " +
			"'10.0.0.9': {'aliases': ['db'], 'comment': 'the database'}}"},
		{"hosts.get_ip", []any{"www"}, "'10.0.0.5'"},
		{"hosts.get_ip", []any{"localhost"}, "'127.0.0.1'"},
		{"hosts.get_ip", []any{"nope"}, "''"},
		{"hosts.get_alias", []any{"10.0.0.5"}, "['web', 'web.example.com', 'www']"},
		{"hosts.get_alias", []any{"10.9.9.9"}, "[]"},
		{"hosts.has_pair", []any{"10.0.0.5", "www"}, "True"},
		{"hosts.has_pair", []any{"10.0.0.5", value.NewList("web", "www")}, "True"},
		{"hosts.has_pair", []any{"10.0.0.5", value.NewList("web", "db")}, "False"},
		{"hosts.has_pair", []any{"10.9.9.9", "www"}, "False"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	missing, _ := hostsCtx(t, "")
	if got := value.Repr(call(t, missing, "hosts.list_hosts", nil)); got != "{}" {
		t.Errorf("list_hosts of a missing file = %s", got)
	}
}

// TestHostsWrite checks each writing function's file against what Salt's
// hosts module writes for the same call.
func TestHostsWrite(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fun     string
		args    []any
		kw      []any
		start   string
		want    string
		wantRet string
	}{
		{"set_host replaces the first line, drops the others", "hosts.set_host", []any{"10.0.0.5", "app app.local"}, nil, hostsSample,
			"# The static table\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost  # v6\n10.0.0.5\t\tapp app.local\n10.0.0.9\tdb\t# the database\n\n", "True"},
		{"set_host with a comment appends", "hosts.set_host", []any{"10.1.1.1", "new"}, []any{"comment", "added"}, "127.0.0.1 localhost",
			"127.0.0.1 localhost\n10.1.1.1\t\tnew\t\t# added\n", "True"},
		{"set_host with no alias removes", "hosts.set_host", []any{"10.0.0.9", " "}, nil, hostsSample,
			"# The static table\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost  # v6\n10.0.0.5\tweb web.example.com\n10.0.0.5\twww\n\n", "True"},
		{"set_host creates the file", "hosts.set_host", []any{"10.1.1.1", "new"}, nil, "",
			"10.1.1.1\t\tnew\n", "True"},
		{"rm_host keeps the others and the comment", "hosts.rm_host", []any{"::1", "localhost"}, nil, hostsSample,
			"# The static table\n127.0.0.1\tlocalhost\n::1\t\tip6-localhost # v6\n10.0.0.5\tweb web.example.com\n10.0.0.5\twww\n10.0.0.9\tdb\t# the database\n\n", "True"},
		{"rm_host drops an emptied line", "hosts.rm_host", []any{"10.0.0.5", "www"}, nil, hostsSample,
			"# The static table\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost  # v6\n10.0.0.5\t\tweb web.example.com \n10.0.0.9\tdb\t# the database\n\n", "True"},
		{"rm_host of an absent pair changes nothing", "hosts.rm_host", []any{"10.0.0.5", "nope"}, nil, hostsSample, hostsSample, "True"},
		{"add_host rewrites the file", "hosts.add_host", []any{"10.0.0.9", "pg"}, nil, hostsSample,
			"# The static table\n127.0.0.1\t\tlocalhost\n::1\t\tlocalhost ip6-localhost\t\t# v6\n10.0.0.5\t\tweb web.example.com www\n10.0.0.9\t\tdb pg\t\t# the database\n", "True"},
		{"add_host of a new address", "hosts.add_host", []any{"10.2.2.2", "x"}, nil, "127.0.0.1 localhost\n",
			"127.0.0.1\t\tlocalhost\n10.2.2.2\t\tx\n", "True"},
		{"add_host of a present pair changes nothing", "hosts.add_host", []any{"10.0.0.5", "www"}, nil, hostsSample, hostsSample, "True"},
		{"set_comment", "hosts.set_comment", []any{"127.0.0.1", "loop"}, nil, "127.0.0.1 localhost\n10.0.0.1 a # old\n",
			"127.0.0.1\t\tlocalhost\t\t# loop\n10.0.0.1\t\ta\t\t# old\n", "True"},
		{"set_comment of the same comment", "hosts.set_comment", []any{"10.0.0.1", "old"}, nil, "10.0.0.1 a # old\n", "10.0.0.1 a # old\n", "True"},
		{"set_comment of an absent address", "hosts.set_comment", []any{"10.9.9.9", "x"}, nil, "10.0.0.1 a\n", "10.0.0.1 a\n", "False"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, path := hostsCtx(t, tc.start)
			if got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...)); got != tc.wantRet {
				t.Errorf("returned %s, want %s", got, tc.wantRet)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tc.want {
				t.Errorf("file =\n%q\nwant\n%q", data, tc.want)
			}
		})
	}
}
