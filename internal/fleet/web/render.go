package web

import (
	"html"
	"strconv"
	"strings"
)

// ansiHTML turns the ANSI colours of an outputter's text into spans with
// classes (c-red, c-green, ..., b for bold), escaping the rest, so the
// console shows the highstate outputter's colours in either theme.
func ansiHTML(s string) string {
	var b strings.Builder
	open := false
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			b.WriteString(html.EscapeString(s))
			break
		}
		b.WriteString(html.EscapeString(s[:i]))
		s = s[i+2:]
		j := strings.IndexByte(s, 'm')
		if j < 0 || j > 16 {
			continue
		}
		codes := strings.Split(s[:j], ";")
		s = s[j+1:]
		var classes []string
		for _, c := range codes {
			n, err := strconv.Atoi(c)
			if err != nil {
				continue
			}
			switch {
			case n == 1:
				classes = append(classes, "b")
			case n >= 30 && n <= 37:
				classes = append(classes, "c-"+ansiNames[n-30])
			case n >= 90 && n <= 97:
				classes = append(classes, "c-"+ansiNames[n-90], "b")
			}
		}
		if open {
			b.WriteString("</span>")
			open = false
		}
		if len(classes) > 0 {
			b.WriteString(`<span class="` + strings.Join(classes, " ") + `">`)
			open = true
		}
	}
	if open {
		b.WriteString("</span>")
	}
	return b.String()
}

var ansiNames = [8]string{"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"}
