package pyops

import (
	"testing"

	"brine/internal/value"
)

// Expectations printed by CPython 3.11's pprint.pformat.
func TestPrettyPrinter(t *testing.T) {
	d := value.MapOf(
		"b", value.NewList(int64(1), int64(2), value.MapOf("z", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "a", value.Tuple{int64(1), int64(2)})),
		"a", "word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ",
		"c", value.Tuple{"only"},
	)
	tests := []struct {
		p    PrettyPrinter
		want string
	}{
		{PrettyPrinter{}, "{'a': 'word word word word word word word word word word word word word word '\n      'word word word word word word word word word word word word word word '\n      'word word ',\n 'b': [1,\n       2,\n       {'a': (1, 2),\n        'z': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}],\n 'c': ('only',)}"},
		{PrettyPrinter{Width: 40, Indent: 3}, "{  'a': 'word word word word word word '\n        'word word word word word word '\n        'word word word word word word '\n        'word word word word word word '\n        'word word word word word '\n        'word ',\n   'b': [  1,\n           2,\n           {  'a': (1, 2),\n              'z': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'}],\n   'c': ('only',)}"},
		{PrettyPrinter{Unsorted: true}, "{'b': [1,\n       2,\n       {'z': 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',\n        'a': (1, 2)}],\n 'a': 'word word word word word word word word word word word word word word '\n      'word word word word word word word word word word word word word word '\n      'word word ',\n 'c': ('only',)}"},
	}
	for _, tc := range tests {
		if got := tc.p.Format(d); got != tc.want {
			t.Errorf("%+v:\n%s\nwant\n%s", tc.p, got, tc.want)
		}
	}
}
