package modules

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"brine/internal/value"
)

func TestFileSourceFunctions(t *testing.T) {
	d := t.TempDir()
	sha := "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
	if err := os.WriteFile(filepath.Join(d, "SUMS"), []byte(sha+"  hello.txt\nd41d8cd98f00b204e9800998ecf8427e  other.txt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "local"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/there" {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	runFileSteps(t, d, []fileStep{
		{fun: "file.source_list", args: []any{"salt://x", "h", "base"}, want: "('salt://x', 'h')"},
		{fun: "file.source_list", args: []any{value.NewList("salt://nope.sls", "salt://empty.sls"), nil, "base"}, want: "('salt://empty.sls', None)"},
		{fun: "file.source_list", args: []any{value.NewList("salt://nope.sls", "salt://sub"), "h", "base"}, want: "('salt://sub', 'h')"},
		{fun: "file.source_list", args: []any{value.NewList("file://{d}/nope", "file://{d}/local"), nil, "base"}, want: "('file://{d}/local', None)"},
		{fun: "file.source_list", args: []any{value.NewList(srv.URL+"/gone", srv.URL+"/there"), nil, "base"}, want: "('" + srv.URL + "/there', None)"},
		{fun: "file.source_list", args: []any{value.NewList("{d}/nope"), nil, "base"}, err: "none of the specified sources were found"},
		{fun: "file.get_source_sum", kw: []any{"source_hash", sha}, want: "{'hash_type': 'sha256', 'hsum': '" + sha + "'}"},
		{fun: "file.get_source_sum", kw: []any{"source_hash", "MD5=D41D8CD98F00B204E9800998ECF8427E"}, err: "Invalid hash type 'MD5'. Supported hash types are: sha512, sha384, sha256, sha224, sha1, md5. Either remove the hash type and simply use 'D41D8CD98F00B204E9800998ECF8427E' as the source_hash, or change the hash type to a supported type."},
		{fun: "file.get_source_sum", kw: []any{"source_hash", "sha1=D41D8CD98F00B204E9800998ECF8427E"}, err: "Invalid length (32) for hash type 'sha1'. Either remove the hash type and simply use 'D41D8CD98F00B204E9800998ECF8427E' as the source_hash, or change the hash type to 'md5'"},
		{fun: "file.get_source_sum", kw: []any{"source_hash", "xyz"}, err: "Source hash xyz format is invalid. The supported formats are: 1) a hash, 2) an expression in the format <hash_type>=<hash>, or 3) either a path to a local file containing hashes, or a URI of a remote hash file. Supported protocols for remote hash files are: salt, file, http, https, ftp, swift, s3. The hash may also not be of a valid length, the following are supported hash types and lengths: md5 (32), sha1 (40), sha224 (56), sha256 (64), sha384 (96), sha512 (128)."},
		{fun: "file.get_source_sum", kw: []any{"file_name", "/srv/other.txt", "source_hash", "{d}/SUMS"}, want: "{'hash_type': 'md5', 'hsum': 'd41d8cd98f00b204e9800998ecf8427e'}"},
		{fun: "file.get_source_sum", kw: []any{"source", "http://x/hello.txt", "source_hash", "file://{d}/SUMS"}, want: "{'hash_type': 'sha256', 'hsum': '" + sha + "'}"},
		{fun: "file.get_source_sum", kw: []any{"source_hash", "salt://nope"}, err: "Source hash file salt://nope not found"},
		{fun: "file.apply_template_on_contents", args: []any{"{{ a }}-{{ b }}-{{ grains.os }}", "jinja", value.MapOf("a", "1"), value.MapOf("a", "0", "b", "2"), "base"}, want: "'1-2-Debian'"},
		{fun: "file.apply_template_on_contents", args: []any{"x", "nope", nil, nil, "base"}, want: "{'result': False, 'comment': 'Specified template format nope is not supported'}"},
	})
	// Mapping items carry their own source_hash (source_hash when empty).
	got := call(t, testContext(), "file.source_list", []any{value.NewList(value.MapOf(d+"/nope", "a"), value.MapOf(d+"/local", "")), "h", "base"})
	if value.Repr(got) != "('"+d+"/local', 'h')" {
		t.Errorf("mapping sources: %s", value.Repr(got))
	}
	got = call(t, testContext(), "file.source_list", []any{value.NewList(value.MapOf(d+"/local", "b")), "h", "base"})
	if value.Repr(got) != "('"+d+"/local', 'b')" {
		t.Errorf("mapping sources: %s", value.Repr(got))
	}
}
