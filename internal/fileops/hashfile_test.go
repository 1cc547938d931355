package fileops

import (
	"strings"
	"testing"
)

func TestExtractHash(t *testing.T) {
	md5a := "d41d8cd98f00b204e9800998ecf8427e"
	sha1b := "da39a3ee5e6b4b0d3255bfef95601890afd80709"
	sha256c := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	file := strings.Join([]string{
		"# checksums",
		md5a + "  foo.tar.gz",
		sha1b + " *bar.tar.gz",
		sha256c + "  dir/baz.tar.gz",
		"named " + strings.ToUpper(md5a[:31]) + "0 trailer",
		"",
	}, "\n")
	for _, tt := range []struct {
		name                               string
		hashType, fileName, source, hsName string
		hsum, typ                          string
	}{
		{"by file name", "", "/srv/foo.tar.gz", "", "", md5a, "md5"},
		{"by star separator", "", "/srv/bar.tar.gz", "", "", sha1b, "sha1"},
		{"by slash separator", "", "", "https://example.com/x/baz.tar.gz", "", sha256c, "sha256"},
		{"hash type limits", "sha256", "/srv/foo.tar.gz", "", "", sha256c, "sha256"},
		{"source_hash_name first", "", "/srv/foo.tar.gz", "", "bar.tar.gz", md5a, "md5"},
		{"source_hash_name exact", "", "/srv/foo.tar.gz", "", "*bar.tar.gz", sha1b, "sha1"},
		{"source_hash_name at start", "", "", "", "named", strings.ToUpper(md5a[:31]) + "0", "md5"},
		{"first hash otherwise", "", "/srv/none", "", "", md5a, "md5"},
		{"unknown type allows all", "sha3", "/srv/bar.tar.gz", "", "", sha1b, "sha1"},
	} {
		hsum, typ, ok := ExtractHash(file, tt.hashType, tt.fileName, tt.source, tt.hsName)
		if !ok || hsum != tt.hsum || typ != tt.typ {
			t.Errorf("%s: %s %s %v, want %s %s", tt.name, hsum, typ, ok, tt.hsum, tt.typ)
		}
	}
	if _, _, ok := ExtractHash("no hashes here\nabc\n"+md5a+"x\n", "", "f", "", ""); ok {
		t.Errorf("found a hash in a file without one")
	}
}
