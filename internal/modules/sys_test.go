package modules

import (
	"strings"
	"testing"

	"brine/internal/saltspec"
	"brine/internal/value"
)

func TestSysModule(t *testing.T) {
	ctx := testContext()
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"sys.argspec", []any{"test.ping"}, "{'test.ping': {'args': None, 'defaults': None, 'varargs': None, 'kwargs': None}}"},
		{"sys.argspec", []any{"test.sl*"}, "{'test.sleep': {'args': ['length'], 'defaults': None, 'varargs': None, 'kwargs': None}}"},
		{"sys.argspec", []any{"http"}, "{'http.query': {'args': ['url'], 'defaults': None, 'varargs': None, 'kwargs': True}, " +
			"'http.update_ca_bundle': {'args': ['target', 'source', 'merge_files'], 'defaults': (None, None, None), 'varargs': None, 'kwargs': None}, " +
			"'http.wait_for_successful_query': {'args': ['url', 'wait_for'], 'defaults': (300,), 'varargs': None, 'kwargs': True}}"},
		{"sys.argspec", []any{"shadow.gen_password"}, "{'shadow.gen_password': {'args': ['password', 'crypt_salt', 'algorithm'], 'defaults': (None, 'sha512'), 'varargs': None, 'kwargs': None}}"},
		{"sys.argspec", []any{"test.arg"}, "{'test.arg': {'args': None, 'defaults': None, 'varargs': True, 'kwargs': True}}"},
		{"sys.argspec", nil, "{}"},
		{"sys.list_functions", []any{"hosts"}, "['hosts.add_host', 'hosts.get_alias', 'hosts.get_ip', 'hosts.has_pair', 'hosts.list_hosts', 'hosts.rm_host', 'hosts.set_comment', 'hosts.set_host']"},
		{"sys.list_functions", []any{"hosts.get_*"}, "['hosts.get_alias', 'hosts.get_ip']"},
		{"sys.list_functions", []any{"hosts."}, "[]"},
		{"sys.list_functions", []any{"hosts.get_ip"}, "['hosts.get_ip']"},
		{"sys.list_modules", []any{"host*"}, "['hosts']"},
		{"sys.list_modules", []any{"host"}, "[]"},
		{"sys.list_modules", []any{"hosts", "dnsutil"}, "['dnsutil', 'hosts']"},
		{"sys.doc", []any{"hosts.get_ip"}, "{'hosts.get_ip': \"Return the first address that has alias host in the hosts file, else ''.\"}"},
		{"sys.reload_modules", nil, "True"},
		{"sys.renderer_doc", []any{"yaml"}, "{}"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v =\n %s\nwant\n %s", tc.fun, tc.args, got, tc.want)
		}
	}
	if d := call(t, ctx, "sys.doc", []any{"hosts."}).(*value.Map); d.Len() != 8 {
		t.Errorf("sys.doc hosts. has %d entries", d.Len())
	}
	if d := call(t, ctx, "sys.renderer_doc", []any{"y*"}).(*value.Map); d.Len() == 0 {
		t.Error("renderer_doc y* is empty")
	}
	// The state registry is filled by the states package (not linked here).
	if got := value.Repr(sysArgspecReport(saltspec.State, []string{"test.succeed_without_changes", "file.managed", "nosuch.state"}, "test")); got !=
		"{'test.succeed_without_changes': {'args': ['name'], 'defaults': None, 'varargs': None, 'kwargs': True}}" {
		t.Errorf("state argspec = %s", got)
	}
	for _, tc := range []struct {
		src  string
		want string
	}{{"None", "None"}, {"'sha512'", "'sha512'"}, {`"a\tb"`, "'a\\tb'"}, {"300", "300"}, {"0.5", "0.5"}, {"()", "()"}, {"os.sep", "'os.sep'"}} {
		if got := value.Repr(sysPyLiteral(tc.src)); got != tc.want {
			t.Errorf("literal %s = %s, want %s", tc.src, got, tc.want)
		}
	}
}

func TestSysStateSchema(t *testing.T) {
	// What Salt's _argspec_to_schema gives for file.touch's signature
	// (salt.utils.schema run with python3).
	spec := value.MapOf("args", value.NewList("name", "atime", "mtime", "makedirs"), "defaults", value.Tuple{nil, nil, false})
	got := value.Repr(sysArgspecSchema("file.touch", spec))
	alt := func(n, extra string) string {
		var parts []string
		for _, typ := range []string{"boolean", "integer", "number", "string"} {
			parts = append(parts, "{'type': '"+typ+"', 'title': '"+n+"', 'description': '"+n+"'"+extra+"}")
		}
		return "'" + n + "': {'oneOf': [" + strings.Join(parts, ", ") + "]}"
	}
	want := "{'$schema': 'http://json-schema.org/draft-04/schema#', 'title': 'file.touch', 'description': 'file.touch', 'type': 'object', " +
		"'properties': {" + alt("name", "") + ", " + alt("atime", "") + ", " + alt("mtime", "") + ", " + alt("makedirs", ", 'default': False") + "}, " +
		"'x-ordering': ['name', 'atime', 'mtime', 'makedirs'], 'additionalProperties': False}"
	if got != want {
		t.Errorf("schema =\n %s\nwant\n %s", got, want)
	}
	if e, ok := sysArgspecSchema("x.y", value.MapOf("args", nil, "defaults", nil)).(error); !ok || e.Error() != "object of type 'NoneType' has no len()" {
		t.Errorf("schema without args = %v", e)
	}
	if got := value.Repr(call(t, testContext(), "sys.state_schema", nil)); got != "[]" {
		t.Errorf("state_schema() = %s", got)
	}
}
