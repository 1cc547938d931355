package jinja

import (
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/runenames"
)

var (
	runeByNameOnce sync.Once
	runeByName     map[string]rune
)

// lookupRuneName is Python's unicodedata.lookup for a \N{NAME} escape:
// names compare case-insensitively, except that CJK ideographs are named
// by their code point and Hangul syllables by their jamo, in upper case
// only, as CPython does.
func lookupRuneName(name string) (rune, bool) {
	for _, prefix := range []string{"CJK UNIFIED IDEOGRAPH-", "CJK COMPATIBILITY IDEOGRAPH-"} {
		if hex, ok := strings.CutPrefix(name, prefix); ok {
			v, err := strconv.ParseUint(hex, 16, 32)
			if err != nil || (len(hex) != 4 && len(hex) != 5) || strings.ToUpper(hex) != hex {
				return 0, false
			}
			r := rune(v)
			return r, unicode.Is(unicode.Ideographic, r)
		}
	}
	runeByNameOnce.Do(func() {
		runeByName = make(map[string]rune, 40000)
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			if n := runenames.Name(r); n != "" && n[0] != '<' {
				if _, dup := runeByName[n]; !dup {
					runeByName[n] = r
				}
			}
		}
	})
	if syl, ok := strings.CutPrefix(name, "HANGUL SYLLABLE "); ok {
		// Named from their jamo (Unicode 3.12), upper case only, as CPython.
		for i := 0; i < 19*21*28; i++ {
			if hangulL[i/(21*28)]+hangulV[i%(21*28)/28]+hangulT[i%28] == syl {
				return rune(0xac00 + i), true
			}
		}
		return 0, false
	}
	r, ok := runeByName[strings.ToUpper(name)]
	return r, ok
}

var (
	hangulL = []string{"G", "GG", "N", "D", "DD", "R", "M", "B", "BB", "S", "SS", "", "J", "JJ", "C", "K", "T", "P", "H"}
	hangulV = []string{"A", "AE", "YA", "YAE", "EO", "E", "YEO", "YE", "O", "WA", "WAE", "OE", "YO", "U", "WEO", "WE", "WI", "YU", "EU", "YI", "I"}
	hangulT = []string{"", "G", "GG", "GS", "N", "NJ", "NH", "D", "L", "LG", "LM", "LB", "LS", "LT", "LP", "LH", "M", "B", "BS", "S", "SS", "NG", "J", "C", "K", "T", "P", "H"}
)
