package outputters

import (
	"strings"
	"testing"
)

// The expectations are Python 3's textwrap.TextWrapper(width=80,
// initial_indent=14*" ", subsequent_indent=14*" ").fill(text), as the
// highstate outputter formats warnings.
func TestTextwrapFill(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a warning that is rather long and contains words that need to be wrapped at eighty columns by textwrap fill in python\nsecond", "              a warning that is rather long and contains words that need to be\n              wrapped at eighty columns by textwrap fill in python second"},
		{"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "              xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n              xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"},
		{"aaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-ccccccccccccccccccccccccccccccccccc-dddddddddd eeee", "              aaaa bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb-\n              ccccccccccccccccccccccccccccccccccc-dddddddddd eeee"},
		{"The 'foo' argument is deprecated--use 'bar' instead; see https://docs.saltproject.io/en/latest/ref/states/all/salt.states.file.html for details", "              The 'foo' argument is deprecated--use 'bar' instead; see https://d\n              ocs.saltproject.io/en/latest/ref/states/all/salt.states.file.html\n              for details"},
		{"tabs\tand\nnewlines   collapse   not-really-collapsed well-known ab-cd e-f", "              tabs    and newlines   collapse   not-really-collapsed well-known\n              ab-cd e-f"},
		{"", ""},
	}
	ind := strings.Repeat(" ", 14)
	for _, tt := range tests {
		if got := textwrapFill(tt.in, 80, ind, ind); got != tt.want {
			t.Errorf("textwrapFill(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}
