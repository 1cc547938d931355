package jinja

import (
	"brine/internal/value"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestAdhoc renders the templates listed in $JINJA_ADHOC (a JSON list of
// strings) and writes {"out"|"err"} results to $JINJA_ADHOC.out; used by
// tools/jinjagolden/diff.py for quick differential checks.
func TestAdhoc(t *testing.T) {
	path := os.Getenv("JINJA_ADHOC")
	if path == "" {
		t.Skip("JINJA_ADHOC not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var srcs []struct {
		T    string   `json:"t"`
		Opts []string `json:"opts"`
	}
	if err := json.Unmarshal(data, &srcs); err != nil {
		t.Fatal(err)
	}
	type result struct {
		Out  *string `json:"out,omitempty"`
		Type string  `json:"type,omitempty"`
		Msg  string  `json:"msg,omitempty"`
		Line int     `json:"line,omitempty"`
	}
	var res []result
	for _, s := range srcs {
		out, err := renderGolden(goldenCase{template: s.T, options: s.Opts, files: progFiles})
		if err != nil {
			e := asError(err)
			res = append(res, result{Type: e.Type, Msg: e.Msg, Line: e.Line})
		} else {
			res = append(res, result{Out: &out})
		}
	}
	b, _ := json.Marshal(res)
	if err := os.WriteFile(path+".out", b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// stubTag parses Salt's serializer tags (import_yaml "x" as y [with
// context]; load_yaml as y ... endload; profile as 'l' ... endprofile)
// without running them: for parse checks only.
type stubTag struct{}

func (stubTag) Execute(ctx *Context) error { return nil }

func stubImport(p *Parser) (TagNode, error) {
	if _, err := p.ParseExpression(); err != nil {
		return nil, err
	}
	if err := p.Keyword("as"); err != nil {
		return nil, err
	}
	if _, err := p.Name(); err != nil {
		return nil, err
	}
	if w := p.PeekName(); w == "with" || w == "without" {
		p.SkipKeyword(w)
		if err := p.Keyword("context"); err != nil {
			return nil, err
		}
	}
	return stubTag{}, nil
}

func stubBlock(end string, expr bool) TagParser {
	return func(p *Parser) (TagNode, error) {
		if err := p.Keyword("as"); err != nil {
			return nil, err
		}
		var err error
		if expr {
			_, err = p.ParseExpression()
		} else {
			_, err = p.Name()
		}
		if err != nil {
			return nil, err
		}
		_, _, err = p.ParseBody(end)
		return stubTag{}, err
	}
}

// TestAdhocParse parses the files listed in $JINJA_PARSE (JSON list of
// paths) with stub Salt tags and writes {ok, msg, line} results to
// $JINJA_PARSE.out (tools/jinjagolden/parsecheck.py).
func TestAdhocParse(t *testing.T) {
	path := os.Getenv("JINJA_PARSE")
	if path == "" {
		t.Skip("JINJA_PARSE not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	if err := json.Unmarshal(data, &files); err != nil {
		t.Fatal(err)
	}
	env := New()
	for _, n := range []string{"import_yaml", "import_json", "import_text"} {
		env.AddTag(n, stubImport)
	}
	for _, n := range []string{"load_yaml", "load_json", "load_text"} {
		env.AddTag(n, stubBlock("endload", false))
	}
	env.AddTag("profile", stubBlock("endprofile", true))
	for _, f := range []string{"yaml", "json", "yaml_dquote", "yaml_squote", "yaml_encode", "regex_replace", "traverse", "quote", "load_yaml", "load_json", "to_bool", "is_ip", "ipv4", "ipv6", "sha512", "regex_escape", "ipwrap", "path_join", "is_ipv4", "regex_search", "regex_match", "unique", "dict_to_sls_yaml_params", "md5", "sha256", "base64_encode", "base64_decode", "strftime", "to_num", "json_query", "union", "difference", "intersect", "symmetric_difference", "sequence", "skip", "exactly_one", "exactly_n_true", "flatten", "combinations", "compress", "zip", "uuid", "random_hash", "yaml_safe", "python", "xml", "check_whitelist_blacklist", "date_format", "str_to_num", "avg", "min", "max", "network_hosts", "network_size", "gen_mac", "mac_str_to_bytes", "dns_check", "is_ipv6", "ipaddr", "ipv6", "file_hashsum", "http_query", "list_files", "method_call", "get_uid", "to_bytes", "is_list", "is_iter", "mysql_to_dict", "contains_whitespace", "substring_in_list", "is_text_file", "is_bin_file", "is_binary", "is_empty", "is_hex", "is_sorted", "sorted_ignorecase", "escape_regex", "match", "test"} {
		if !env.HasFilter(f) {
			env.AddFilter(f, func(v any, a []any, kw *value.Map) (any, error) { return v, nil })
		}
	}
	env.AddTest("match", func(v any, a []any, kw *value.Map) (bool, error) { return false, nil })
	env.AddTest("list", func(v any, a []any, kw *value.Map) (bool, error) { return false, nil })
	type result struct {
		OK   bool   `json:"ok"`
		Msg  string `json:"msg,omitempty"`
		Line int    `json:"line,omitempty"`
	}
	var res []result
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		_, err = env.Parse(f, string(src))
		if err != nil {
			e := asError(err)
			res = append(res, result{Msg: e.Msg, Line: e.Line})
		} else {
			res = append(res, result{OK: true})
		}
	}
	b, _ := json.Marshal(res)
	if err := os.WriteFile(path+".out", b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNamedEscapes(t *testing.T) {
	tests := []struct{ src, want, err string }{
		{`{{ 'a\N{BULLET}b' }}`, "a•b", ""},
		{`{{ '\N{latin small letter e with acute}' }}`, "é", ""},
		{`{{ '\N{CJK UNIFIED IDEOGRAPH-4E00}\N{HANGUL SYLLABLE GA}' }}`, "一가", ""},
		{`{{ '\N{cjk unified ideograph-4e00}' }}`, "", "unknown Unicode character name"},
		{`{{ '\N{hangul syllable ga}' }}`, "", "unknown Unicode character name"},
		{`{{ '\N{ BULLET}' }}`, "", "unknown Unicode character name"},
		{`{{ '\N{BULLET' }}`, "", `malformed \N character escape`},
	}
	env := New()
	for _, tc := range tests {
		got, err := env.RenderString("t", tc.src, nil)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err = %v, want %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s = %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}
}
