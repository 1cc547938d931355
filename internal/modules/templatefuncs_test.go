package modules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	noop := func(*statemod.Call) (*value.Map, error) { return value.NewMap(0), nil }
	statemod.Register(&statemod.Function{Name: "tstate.present", Run: noop, Doc: "Make it present."})
	statemod.Register(&statemod.Function{Name: "tstate.absent", Run: noop, Doc: "Make it absent."})
	statemod.Register(&statemod.Function{Name: "tstatex.run", Run: noop, Doc: "Run it."})
}

// findTree makes a small tree for file.* tests and returns its root.
func findTree(t *testing.T) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "d")
	files := map[string]string{
		"a.txt":          "hello\n",
		"b.log":          "line one\r\n  # port = 80\r\n",
		"sub/c.txt":      "x",
		"sub/deep/e.txt": "",
		"empty/.keep":    "",
	}
	for name, body := range files {
		p := filepath.Join(d, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestTemplateFunctions(t *testing.T) {
	ctx := testContext()
	d := findTree(t)
	me := uidToUser(int64(os.Getuid()))
	a := value.MapOf("a", value.MapOf("x", int64(1), "l", value.NewList(int64(1))), "k", "v")
	b := func() *value.Map {
		return value.MapOf("a", value.MapOf("y", int64(2), "l", value.NewList(int64(1), int64(2))), "n", nil)
	}
	tests := []struct {
		name string
		args []any
		kw   []any
		want string
	}{
		// slsutil.update / merge / merge_all (salt.utils.dictupdate)
		{"slsutil.update", []any{value.MapOf("foo", "Foo"), value.MapOf("bar", "Bar")}, nil, "{'foo': 'Foo', 'bar': 'Bar'}"},
		{"slsutil.update", []any{value.DeepCopy(a), b()}, nil, "{'a': {'x': 1, 'l': [1, 2], 'y': 2}, 'k': 'v', 'n': None}"},
		{"slsutil.update", []any{value.DeepCopy(a), b()}, []any{"merge_lists", true}, "{'a': {'x': 1, 'l': [1, 2], 'y': 2}, 'k': 'v', 'n': None}"},
		{"slsutil.update", []any{value.DeepCopy(a), b()}, []any{"recursive_update", false}, "{'a': {'y': 2, 'l': [1, 2]}, 'k': 'v', 'n': None}"},
		{"slsutil.merge", []any{value.MapOf("foo", "Foo"), value.MapOf("bar", "Bar")}, nil, "{'foo': 'Foo', 'bar': 'Bar'}"},
		{"slsutil.merge", []any{a, b()}, nil, "{'a': {'x': 1, 'l': [1, 2], 'y': 2}, 'k': 'v', 'n': None}"},
		{"slsutil.merge", []any{a, b()}, []any{"strategy", "overwrite"}, "{'a': {'y': 2, 'l': [1, 2]}, 'k': 'v', 'n': None}"},
		{"slsutil.merge", []any{a, b()}, []any{"strategy", "list"}, "{'a': [{'x': 1, 'l': [1]}, {'y': 2, 'l': [1, 2]}], 'k': 'v'}"},
		{"slsutil.merge", []any{a, b()}, []any{"strategy", "aggregate"}, "{'a': {'y': 2, 'l': [1, 2]}, 'k': 'v', 'n': None}"},
		{"slsutil.merge", []any{a, b()}, []any{"renderer", "jinja|yamlex"}, "{'a': {'y': 2, 'l': [1, 2]}, 'k': 'v', 'n': None}"},
		{"slsutil.merge_all", []any{value.NewList(value.MapOf("foo", "Foo"), value.MapOf("foo", "Bar"))}, nil, "{'foo': 'Bar'}"},
		{"slsutil.merge_all", []any{value.NewList()}, nil, "{}"},
		{"slsutil.merge_all", []any{value.NewList(a, b())}, []any{"merge_lists", true}, "{'a': {'x': 1, 'l': [1, 2], 'y': 2}, 'k': 'v', 'n': None}"},
		// slsutil.serialize / deserialize (salt/serializers)
		{"slsutil.serialize", []any{"json", value.MapOf("foo", "Foo!", "é", value.NewList(int64(1), int64(2)))}, nil, `'{"foo": "Foo!", "é": [1, 2]}'`},
		{"slsutil.serialize", []any{"json", value.MapOf("b", int64(1), "a", nil)}, []any{"sort_keys", true, "indent", int64(2)}, `'{\n  "a": null,\n  "b": 1\n}'`},
		{"slsutil.serialize", []any{"yaml", value.MapOf("foo", "Foo!", "b", value.NewList(int64(1), int64(2)), "c", value.MapOf("x", int64(1)))}, nil, "'b: [1, 2]\\nc: {x: 1}\\nfoo: Foo!'"},
		{"slsutil.serialize", []any{"yaml", value.MapOf("b", value.NewList(int64(1)))}, []any{"default_flow_style", false}, "'b:\\n- 1'"},
		{"slsutil.serialize", []any{"yaml", "x"}, nil, "'x'"},
		{"slsutil.serialize", []any{"python", value.MapOf("t", true, "k", value.NewList(strings.Repeat("a", 40), strings.Repeat("b", 40)), "n", nil, "f", 1.5)}, nil,
			value.Repr("{'f': 1.5,\n 'k': ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',\n       'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'],\n 'n': None,\n 't': True}")},
		{"slsutil.serialize", []any{"python", value.MapOf("b", value.NewList(strings.Repeat("x", 30), strings.Repeat("y", 30), value.MapOf("k", strings.Repeat("v", 70))), "a", int64(1), "long", strings.Repeat("word ", 30))}, nil,
			value.Repr("{'a': 1,\n 'b': ['xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',\n       'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyy',\n       {'k': 'vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv'}],\n 'long': 'word word word word word word word word word word word word word '\n         'word word word word word word word word word word word word word '\n         'word word word word '}")},
		{"slsutil.serialize", []any{"python", strings.Repeat("word ", 30)}, nil,
			value.Repr("('word word word word word word word word word word word word word word word '\n 'word word word word word word word word word word word word word word word ')")},
		{"slsutil.serialize", []any{"python", value.NewList(strings.Repeat("line one\n", 3) + strings.Repeat("x", 90))}, nil,
			value.Repr("['line one\\n'\n 'line one\\n'\n 'line one\\n'\n 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx']")},
		{"slsutil.serialize", []any{"python", value.Tuple{int64(1), "a"}}, nil, `"[1, 'a']"`},
		{"slsutil.deserialize", []any{"json", `{"foo": "Foo!", "n": [1, 2.5, null]}`}, nil, "{'foo': 'Foo!', 'n': [1, 2.5, None]}"},
		{"slsutil.deserialize", []any{"yaml", "foo: Foo!\nn: [1, 2.5, ~]\non: yes"}, nil, "{'foo': 'Foo!', 'n': [1, 2.5, None], True: True}"},
		{"slsutil.deserialize", nil, []any{"serializer", "json", "stream_or_string", []byte(`[1]`)}, "[1]"},
		// file.* path helpers (os.path)
		{"file.dirname", []any{"test/path/filename.config"}, nil, "'test/path'"},
		{"file.dirname", []any{"/a//b//"}, nil, "'/a//b'"},
		{"file.dirname", []any{"//x"}, nil, "'//'"},
		{"file.dirname", []any{"name"}, nil, "''"},
		{"file.basename", []any{"test/test.config"}, nil, "'test.config'"},
		{"file.basename", []any{"/a/b/"}, nil, "''"},
		{"file.join", []any{"/", "usr", "local", "bin"}, nil, "'/usr/local/bin'"},
		{"file.join", []any{"a", "/b", "c/", "d"}, nil, "'/b/c/d'"},
		{"file.join", []any{"/var", "myapp", "config.yaml"}, nil, "'/var/myapp/config.yaml'"},
		// file.* on a real tree
		{"file.read", []any{d + "/a.txt"}, nil, "'hello\\n'"},
		{"file.read", []any{d + "/b.log"}, nil, "'line one\\n  # port = 80\\n'"},
		{"file.read", []any{d + "/b.log"}, []any{"binary", true}, "b'line one\\r\\n  # port = 80\\r\\n'"},
		{"file.readdir", []any{d + "/empty"}, nil, "['.', '..', '.keep']"},
		{"file.contains_regex", []any{d + "/b.log", `^# port = \d+$`}, nil, "False"},
		{"file.contains_regex", []any{d + "/b.log", `^# port = \d+$`, " "}, nil, "True"},
		{"file.contains_regex", []any{d + "/b.log", `one$`}, nil, "True"},
		{"file.contains_regex", []any{d + "/nope", `x`}, nil, "False"},
		{"file.get_user", []any{d + "/a.txt"}, nil, value.Repr(me)},
		{"file.check_hash", []any{d + "/a.txt", "b1946ac92492d2347c6235b4d2611184"}, nil, "True"},
		{"file.check_hash", []any{d + "/a.txt", "md5=b1946ac92492d2347c6235b4d2611184"}, nil, "True"},
		{"file.check_hash", []any{d + "/a.txt", "sha256:5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03"}, nil, "True"},
		{"file.check_hash", []any{d + "/a.txt", "sha256=5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be04"}, nil, "False"},
		{"file.find", []any{d}, []any{"name", "*.txt"}, "['$D/a.txt', '$D/sub/c.txt', '$D/sub/deep/e.txt']"},
		{"file.find", []any{d}, []any{"name", "*.txt", "maxdepth", int64(1)}, "['$D/a.txt']"},
		{"file.find", []any{d}, []any{"type", "d"}, "['$D', '$D/empty', '$D/sub', '$D/sub/deep']"},
		{"file.find", []any{d}, []any{"type", "f", "mindepth", int64(2)}, "['$D/empty/.keep', '$D/sub/c.txt', '$D/sub/deep/e.txt']"},
		{"file.find", []any{d}, []any{"iname", "*.TXT", "print", "name"}, "['a.txt', 'c.txt', 'e.txt']"},
		{"file.find", []any{d}, []any{"name", "a.txt", "print", "name,size,type,mode"}, "[['a.txt', 6, 'f', 420]]"},
		{"file.find", []any{d}, []any{"regex", `[bc]\.`, "size", "-1k"}, "['$D/b.log', '$D/sub/c.txt']"},
		{"file.find", []any{d}, []any{"grep", "port", "type", "f"}, "['$D/b.log']"},
		{"file.find", []any{d}, []any{"user", "root"}, `'error: invalid option "user"'`},
		{"file.find", []any{d}, []any{"type", "z"}, `'error: invalid file type "z"'`},
		{"file.find", []any{d + "/nope"}, nil, "[]"},
		// cp
		{"cp.list_states", nil, nil, "['empty', 'sub.t']"},
		{"cp.list_states", []any{"nope"}, nil, "[]"},
		{"cp.list_master_dirs", nil, nil, "['sub']"},
		{"cp.list_master_dirs", nil, []any{"prefix", "/x"}, "[]"},
		// sys
		{"sys.list_state_functions", []any{"tstate"}, nil, "['tstate.absent', 'tstate.present']"},
		{"sys.list_state_functions", []any{"tstate*.*r*"}, nil, "['tstate.present', 'tstatex.run']"},
		{"sys.list_state_modules", []any{"tstate"}, nil, "['tstate']"},
		{"sys.list_state_modules", []any{"tst*"}, nil, "['tstate', 'tstatex']"},
		{"sys.state_doc", []any{"tstate"}, nil, "{'tstate.absent': 'Make it absent.', 'tstate.present': 'Make it present.'}"},
		{"sys.state_doc", []any{"tstatex.run"}, nil, "{'tstatex.run': 'Run it.'}"},
		{"sys.list_renderers", []any{"json", "nope"}, nil, "['json']"},
	}
	for _, tt := range tests {
		got := call(t, ctx, tt.name, tt.args, tt.kw...)
		want := strings.ReplaceAll(tt.want, "$D", d)
		if value.Repr(got) != want {
			t.Errorf("%s %s %s =\n%s\nwant\n%s", tt.name, value.Repr(value.NewList(tt.args...)), value.Repr(value.MapOf(tt.kw...)), value.Repr(got), want)
		}
	}
}

func TestTemplateFunctionErrors(t *testing.T) {
	ctx := testContext()
	tests := []struct {
		name string
		args []any
		kw   []any
		want string
	}{
		{"slsutil.update", []any{"x", value.NewMap(0)}, nil, "Cannot update using non-dict types in dictupdate.update()"},
		{"slsutil.merge", []any{value.NewMap(0), value.NewList()}, nil, "Cannot update using non-dict types in dictupdate.update()"},
		{"slsutil.serialize", []any{"nope", int64(1)}, nil, "Serializer 'nope' not found."},
		{"slsutil.serialize", []any{"toml", int64(1)}, nil, "Serializer 'toml' is not supported by brine"},
		{"slsutil.deserialize", []any{"python", "1"}, nil, "Serializer 'python' does not implement deserialize."},
		{"slsutil.deserialize", []any{"json", "{"}, nil, "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{"slsutil.deserialize", []any{"yaml", "a: b: c"}, nil, "Unknown yaml render error"},
		{"slsutil.deserialize", []any{"yaml", "a:\n\t- b"}, nil, "Unknown yaml render error"},
		{"slsutil.deserialize", []any{"yaml", "- a\nb: c"}, nil, "while parsing a block collection\n  in \"<unicode string>\", line 1, column 1\ndid not find expected '-' indicator\n  in \"<unicode string>\", line 2, column 1"},
		{"slsutil.serialize", []any{"json", int64(1)}, []any{"bogus", true}, "unexpected keyword argument 'bogus'"},
		{"file.readdir", []any{"rel"}, nil, "Dir path must be absolute."},
		{"file.readdir", []any{"/nonexistent-brine"}, nil, "A valid directory was not specified."},
		{"file.read", []any{"/nonexistent-brine"}, nil, "[Errno 2] No such file or directory: '/nonexistent-brine'"},
		{"file.get_user", []any{"/nonexistent-brine"}, nil, "Path not found: /nonexistent-brine"},
		{"file.check_hash", []any{"/etc/passwd", int64(1)}, nil, "hash must be a string"},
		{"file.check_hash", []any{"/etc/passwd", "abc"}, nil, "Hash abc (length: 3) could not be matched to a supported hash type. The supported hash types and lengths are: md5 (32), sha1 (40), sha224 (56), sha256 (64), sha384 (96), sha512 (128)"},
		{"file.check_hash", []any{"/etc/passwd", "crc=abc"}, nil, "Invalid hash type: crc"},
		{"file.join", []any{"a", int64(1)}, nil, "join() argument must be str, bytes, or os.PathLike object, not 'int'"},
		{"file.dirname", []any{int64(1)}, nil, "expected str, bytes or os.PathLike object, not int"},
		{"test.exception", nil, nil, "Test Exception"},
		{"test.exception", []any{"Oh noes!"}, nil, "Oh noes!"},
	}
	for _, tt := range tests {
		_, err := ctx.Call(tt.name, tt.args, value.MapOf(tt.kw...))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %s: err = %v, want %q", tt.name, value.Repr(value.NewList(tt.args...)), err, tt.want)
		}
	}
}
