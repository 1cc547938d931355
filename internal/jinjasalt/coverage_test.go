package jinjasalt

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every registered filter, test and global has an example run by a test:
// a snippet in testdata/filters_golden.json (recorded from Salt) or a
// conformance case under testdata/cases.
func TestEveryEntryHasAnExample(t *testing.T) {
	var corpus strings.Builder
	golden, err := os.ReadFile("testdata/filters_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	corpus.Write(golden)
	_ = filepath.WalkDir("testdata/cases", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, "/states/") {
			b, _ := os.ReadFile(p)
			corpus.Write(b)
		}
		return nil
	})
	text := corpus.String()
	// Entries whose result is random or depends on the network or the
	// host: their behaviour is checked in unit tests instead.
	untestable := map[string]bool{"dns_check": true}
	for _, kind := range []Kind{Filter, Test, Global} {
		for _, e := range Entries(kind) {
			if untestable[e.Name] {
				continue
			}
			var re *regexp.Regexp
			switch kind {
			case Filter:
				re = regexp.MustCompile(`\|\s*` + e.Name + `\b`)
			case Test:
				re = regexp.MustCompile(`\bis\s+(not\s+)?` + e.Name + `\b`)
			default:
				re = regexp.MustCompile(`\b` + e.Name + `\(`)
			}
			if !re.MatchString(text) {
				t.Errorf("%s %s has no example", kind, e.Name)
			}
		}
	}
}
