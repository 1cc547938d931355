package outputters

// highstate.go is salt/output/highstate.py: the state run report, one block
// (or terse line) per state in __run_num__ order and the Summary.

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"brine/internal/output"
	"brine/internal/pyops"
	"brine/internal/value"
)

func init() {
	output.Register("highstate", highstateOut, "The state run report (salt/output/highstate.py).")
}

func optGet(o *output.Options, k string, def any) any {
	if o.Opts != nil {
		if v, ok := o.Opts.Get(k); ok {
			return v
		}
	}
	return def
}

func highstateOut(data any, o *output.Options) (string, error) {
	h := &hsFormatter{o: o, c: output.GetColors(o.Color)}
	s := h.output(data, 1)
	if h.err != nil {
		return "", h.err
	}
	return s, nil
}

type hsFormatter struct {
	o   *output.Options
	c   output.Colors
	err error // where Salt's outputter would raise; Display then falls back to nested
}

func (h *hsFormatter) output(data any, indentLevel int) string {
	if m, ok := data.(*value.Map); ok {
		if v, ok := m.Get("return"); ok {
			data = v
		}
	}
	if m, ok := data.(*value.Map); ok {
		if v, ok := m.Get("data"); ok {
			data = v
		}
	}
	if m, ok := data.(*value.Map); ok && m.Len() == 1 {
		_, inner := m.At(0)
		if im, ok := inner.(*value.Map); ok && im.Has("jid") && im.Has("fun") {
			if r, ok := im.Get("return"); ok {
				if rm, ok := r.(*value.Map); ok {
					if d, ok := rm.Get("data"); ok {
						data = d
					}
				}
			}
		}
	}
	switch x := data.(type) {
	case int64, bool:
		// Salt returns the number itself, which its caller cannot rstrip
		// or indent as text: the whole output falls back to nested.
		h.err = fmt.Errorf("TypeError: %s is not text", value.Repr(value.TypeName(x)))
		return ""
	case string:
		return x
	case nil:
		return "None"
	}
	m, ok := data.(*value.Map)
	if !ok {
		// Salt calls data.keys() on it.
		h.err = fmt.Errorf("AttributeError: %s object has no attribute 'keys'", value.Repr(value.TypeName(data)))
		return ""
	}
	m = dropOrchestratorRetcode(m)
	if value.Truthy(optGet(h.o, "state_compress_ids", false)) {
		m = compressIDs(m)
	}
	var parts []string
	m.Range(func(host, hostdata any) bool {
		s, _ := h.formatHost(value.Str(host), hostdata, indentLevel)
		parts = append(parts, s)
		return true
	})
	return strings.Join(parts, "\n")
}

var hsLabels = map[any]string{true: "Succeeded", false: "Failed", nil: "Not Run", "warnings": "Warnings"}

// formatHost is _format_host: the block of one minion.
func (h *hsFormatter) formatHost(host string, data any, indentLevel int) (string, bool) {
	c := h.c
	tabular := optGet(h.o, "state_tabular", false)
	rcounts := map[any]int{}
	var rdurations, pdurations []float64
	hcolor := c.Green
	var hstrs []string
	nchanges := 0
	stripColors := value.Truthy(optGet(h.o, "strip_colors", true))
	switch x := data.(type) {
	case bool: // a Python bool is an int
		nchanges = 1
		hstrs = append(hstrs, fmt.Sprintf("%s    %s%s", hcolor, value.Str(x), c.EndC))
		hcolor = c.Cyan
	case int64:
		nchanges = 1
		hstrs = append(hstrs, fmt.Sprintf("%s    %d%s", hcolor, x, c.EndC))
		hcolor = c.Cyan
	case string:
		nchanges = 1
		for _, line := range pyops.SplitLines(x, false) {
			hstrs = append(hstrs, fmt.Sprintf("%s    %s%s", hcolor, line, c.EndC))
		}
		hcolor = c.Cyan
	case *value.List:
		hcolor = c.LightRed
		hstrs = append(hstrs, fmt.Sprintf("    %sData failed to compile:%s", hcolor, c.EndC))
		for _, e := range x.Items {
			es := value.Str(e)
			if stripColors {
				if s, isStr := e.(string); isStr {
					es = stripEsc(s)
				}
			}
			hstrs = append(hstrs, fmt.Sprintf("%s----------\n    %s%s", hcolor, es, c.EndC))
		}
	case *value.Map:
		type entry struct {
			tag string
			ret *value.Map
		}
		var states []entry
		x.Range(func(k, v any) bool {
			info, isMap := v.(*value.Map)
			tname := value.Str(k)
			if isMap && tname != "changes" && info.Len() > 0 && !info.Has("__run_num__") {
				hstrs = append([]string{"The State execution failed to record the order in which all states were executed. The state return missing data is:", pyops.PFormat(info)}, hstrs...)
			}
			if isMap && info.Has("result") {
				states = append(states, entry{tname, info.Copy()})
			}
			return true
		})
		sort.SliceStable(states, func(i, j int) bool {
			return runNum(states[i].ret) < runNum(states[j].ret)
		})
		stateOutput := strings.ToLower(value.Str(optGet(h.o, "state_output", "full")))
		verbose := value.Truthy(optGet(h.o, "state_verbose", false))
		outputDiff := value.Truthy(optGet(h.o, "state_output_diff", false))
		profile := value.Truthy(optGet(h.o, "state_output_profile", true))
		compress := value.Truthy(optGet(h.o, "state_compress_ids", false))
		for _, st := range states {
			ret := st.ret
			result, _ := ret.Get("result")
			rkey, hashable := resultKey(result)
			if !hashable {
				// Salt cannot count it: TypeError, unhashable type.
				h.err = fmt.Errorf("TypeError: unhashable type: %s", value.Repr(value.TypeName(result)))
				return "", false
			}
			compressed := 1
			if compress && strings.Contains(st.tag, "_|-state_compressed_") {
				parts := strings.Split(st.tag, "_|-")
				if len(parts) == 4 {
					if mm := compressCount.FindStringSubmatch(parts[1]); mm != nil {
						compressed, _ = strconv.Atoi(mm[1])
					}
				}
			}
			rcounts[rkey] += compressed
			dur := durationFloat(mapVal(ret, "duration"))
			if ret.Has("__parallel__") {
				pdurations = append(pdurations, dur)
			} else {
				rdurations = append(rdurations, dur)
			}
			tcolor := c.Green
			var schanged bool
			var ctext string
			name := value.Str(mapVal(ret, "name"))
			if name == "state.orch" || name == "state.orchestrate" || name == "state.sls" {
				nested := h.output(mapVal(ret, "changes"), indentLevel+1)
				ctext = indentAll("\n"+nested, strings.Repeat(" ", 14*indentLevel))
				schanged = true
				nchanges++
			} else {
				schanged, ctext = h.formatChanges(mapVal(ret, "changes"))
				if schanged && compressed > 1 {
					n := 0
					if ch, ok := mapVal(ret, "changes").(*value.Map); ok {
						if cc, ok := mapVal(ch, "compressed changes").(*value.Map); ok {
							n = cc.Len()
						}
					}
					if n == 0 {
						n = 1
					}
					nchanges += n
				} else if schanged {
					nchanges++
				}
			}
			if outputDiff && value.Truthy(result) && !schanged {
				continue
			}
			if !verbose && value.Truthy(result) && !schanged {
				continue
			}
			if schanged {
				tcolor = c.Cyan
			}
			if result == false {
				hcolor, tcolor = c.Red, c.Red
			}
			if result == nil {
				hcolor, tcolor = c.LightYellow, c.LightYellow
			}
			comps := strings.Split(st.tag, "_|-")
			for len(comps) < 4 {
				comps = append(comps, "")
			}
			if strings.HasSuffix(stateOutput, "_id") {
				comps[2] = comps[1]
			}
			if strings.HasPrefix(stateOutput, "filter") {
				exclude := splitOpt(optGet(h.o, "state_output_exclude", nil))
				terse := splitOpt(optGet(h.o, "state_output_terse", nil))
				rs := value.Str(result)
				if contains(terse, rs) {
					hstrs = append(hstrs, h.formatTerse(tcolor, comps, ret, tabular, profile))
					continue
				}
				if contains(exclude, rs) {
					continue
				}
			} else if strings.HasPrefix(stateOutput, "terse") ||
				(strings.HasPrefix(stateOutput, "mixed") && result != false) ||
				(strings.HasPrefix(stateOutput, "changes") && value.Truthy(result) && !schanged) {
				hstrs = append(hstrs, h.formatTerse(tcolor, comps, ret, tabular, profile))
				continue
			}
			comment := h.formatComment(ret)
			lines := []string{
				fmt.Sprintf("%s----------%s", tcolor, c.EndC),
				fmt.Sprintf("    %s      ID: %s%s", tcolor, comps[1], c.EndC),
				fmt.Sprintf("    %sFunction: %s.%s%s", tcolor, comps[0], comps[3], c.EndC),
				fmt.Sprintf("    %s  Result: %s%s", tcolor, value.Str(result), c.EndC),
				fmt.Sprintf("    %s Comment: %s%s", tcolor, comment, c.EndC),
			}
			startTime, hasStart := ret.Get("start_time")
			duration, hasDur := ret.Get("duration")
			durStr := ""
			if hasDur && duration != "" {
				durStr = value.Str(duration) + " ms"
			}
			if profile && hasStart {
				lines = append(lines,
					fmt.Sprintf("    %s Started: %s%s", tcolor, value.Str(startTime), c.EndC),
					fmt.Sprintf("    %sDuration: %s%s", tcolor, durStr, c.EndC))
			}
			if comps[1] != comps[2] {
				lines = append(lines[:3], append([]string{fmt.Sprintf("    %s    Name: %s%s", tcolor, comps[2], c.EndC)}, lines[3:]...)...)
			}
			hstrs = append(hstrs, lines...)
			hstrs = append(hstrs, fmt.Sprintf("%s     Changes:   %s%s", tcolor, ctext, c.EndC))
			if w, ok := ret.Get("warnings"); ok {
				rcounts["warnings"]++
				filled := textwrapFill(joinWarnings(w), 80, strings.Repeat(" ", 14), strings.Repeat(" ", 14))
				hstrs = append(hstrs, fmt.Sprintf("   %s Warnings: %s%s", c.LightRed, strings.TrimLeft(filled, " \t\n\r\v\f"), c.EndC))
			}
		}
		// Summary.
		countMax := 0
		for _, n := range rcounts {
			countMax = max(countMax, len(strconv.Itoa(n)))
		}
		labelMax := len("Succeeded")
		lineMax := labelMax + countMax + 2
		colorfmt := func(col, s string) string { return col + s + c.EndC }
		hstrs = append(hstrs, colorfmt(c.Cyan, fmt.Sprintf("\nSummary for %s\n%s", host, strings.Repeat("-", lineMax))))
		counts := func(label string, count string) string {
			w := lineMax - (len(label) + 2)
			return fmt.Sprintf("%s: %*s", label, w, count)
		}
		var changestats []string
		if rcounts[nil] > 0 {
			changestats = append(changestats, colorfmt(c.LightYellow, fmt.Sprintf("unchanged=%d", rcounts[nil])))
		}
		if nchanges > 0 {
			changestats = append(changestats, colorfmt(c.Green, fmt.Sprintf("changed=%d", nchanges)))
		}
		cs := ""
		if len(changestats) > 0 {
			cs = " (" + strings.Join(changestats, ", ") + ")"
		}
		hstrs = append(hstrs, colorfmt(c.Green, counts(hsLabels[true], strconv.Itoa(rcounts[true]+rcounts[nil])))+cs)
		failed := rcounts[false]
		fcol := c.Cyan
		if failed > 0 {
			fcol = c.Red
		}
		hstrs = append(hstrs, colorfmt(fcol, counts(hsLabels[false], strconv.Itoa(failed))))
		total := 0
		for k, n := range rcounts {
			if k != "warnings" {
				total += n
			}
		}
		if value.Truthy(optGet(h.o, "state_output_pct", false)) && total > 0 {
			succ := pyRound2(float64(rcounts[true]+rcounts[nil]) / float64(total) * 100)
			hstrs = append(hstrs, colorfmt(c.Green, counts("Success %", value.Str(succ))))
			fp := pyRound2(float64(failed) / float64(total) * 100)
			hstrs = append(hstrs, colorfmt(fcol, counts("Failure %", value.Str(fp))))
		}
		if nw := rcounts["warnings"]; nw > 0 {
			hstrs = append(hstrs, colorfmt(c.LightRed, counts(hsLabels["warnings"], strconv.Itoa(nw))))
		}
		hstrs = append(hstrs, colorfmt(c.Cyan, fmt.Sprintf("%s\nTotal states run: %*d", strings.Repeat("-", lineMax), lineMax-7, total)))
		if profile {
			sum := 0.0
			for _, d := range rdurations {
				sum += d
			}
			if len(pdurations) > 0 {
				mx := pdurations[0]
				for _, d := range pdurations {
					mx = max(mx, d)
				}
				sum += mx
			}
			unit := "ms"
			if sum > 999 {
				sum /= 1000
				unit = "s"
			}
			hstrs = append(hstrs, colorfmt(c.Cyan, fmt.Sprintf("Total run time: %*s %s", lineMax-5, strconv.FormatFloat(sum, 'f', 3, 64), unit)))
		}
	}
	if stripColors {
		host = stripEsc(host)
	}
	hstrs = append([]string{fmt.Sprintf("%s%s:%s", hcolor, host, c.EndC)}, hstrs...)
	return strings.Join(hstrs, "\n"), nchanges > 0
}

var compressCount = regexp.MustCompile(`\((\d+)\)$`)

func runNum(m *value.Map) float64 {
	v, ok := m.Get("__run_num__")
	if !ok {
		return 0
	}
	return value.ToFloat(v)
}

// resultKey is the key a result counts under in Salt's dict of counts:
// True, False, None, or the value itself (1 and 1.0 are the key True, 0 is
// False, as Python hashes them). Unhashable results report false.
func resultKey(v any) (any, bool) {
	switch x := v.(type) {
	case nil, bool, string:
		return x, true
	case int64:
		if x == 0 || x == 1 {
			return x == 1, true
		}
		return x, true
	case float64:
		if x == 0 || x == 1 {
			return x == 1, true
		}
		return x, true
	case *value.List, *value.Map:
		return nil, false
	}
	return value.Repr(v), true
}

func mapVal(m *value.Map, k string) any {
	v, _ := m.Get(k)
	return v
}

func durationFloat(v any) float64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		s, _, _ := strings.Cut(x, " ms")
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return 0
		}
		return f
	}
	return value.ToFloat(v)
}

// pyRound2 and pyRound3 are Python's round(f, 2) and round(f, 3): the
// exact binary value rounded to that many decimals, ties to even.
func pyRound2(f float64) float64 { return pyRound(f, 2) }

func pyRound(f float64, places int) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'f', places, 64), 64)
	if err != nil {
		return f
	}
	return r
}

// splitOpt reads state_output_exclude/terse: a comma-separated string or a
// list. Only string items can equal str(result), as in Salt's "in" test.
func splitOpt(v any) []string {
	switch x := v.(type) {
	case string:
		return strings.Split(x, ",")
	case *value.List:
		var out []string
		for _, it := range x.Items {
			if s, ok := it.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// joinWarnings is "\n".join(ret["warnings"]): a list's items, or a
// string's characters, one a line.
func joinWarnings(w any) string {
	switch x := w.(type) {
	case *value.List:
		ws := make([]string, len(x.Items))
		for i, it := range x.Items {
			ws[i] = value.Str(it)
		}
		return strings.Join(ws, "\n")
	case string:
		return strings.Join(strings.Split(x, ""), "\n")
	}
	return value.Str(w)
}

// dropOrchestratorRetcode removes the "retcode" key Salt discards from
// orchestrate data: present beside exactly one "*_master" key.
func dropOrchestratorRetcode(m *value.Map) *value.Map {
	if !m.Has("retcode") {
		return m
	}
	masters := 0
	m.Range(func(k, _ any) bool {
		if s, ok := k.(string); ok && strings.HasSuffix(s, "_master") {
			masters++
		}
		return true
	})
	if masters != 1 {
		return m
	}
	c := m.Copy()
	c.Delete("retcode")
	return c
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func indentAll(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = prefix + lines[i]
	}
	return strings.Join(lines, "\n")
}

// stripEsc is salt.output.strip_esc_sequence: ESC becomes '?'.
func stripEsc(s string) string { return strings.ReplaceAll(s, "\x1b", "?") }

// formatComment renders a state's comment as the full block shows it.
func (h *hsFormatter) formatComment(ret *value.Map) string {
	raw := mapVal(ret, "comment")
	var comment string
	switch x := raw.(type) {
	case string:
		comment = strings.ReplaceAll(strings.TrimSpace(x), "\n", "\n"+strings.Repeat(" ", 14))
	case *value.List:
		// " ".join is Python's str.join on the list: items separated by
		// the comment... Salt calls list.join, which fails, and falls back
		// to str().
		comment = strings.ReplaceAll(strings.TrimSpace(value.Str(x)), "\n", "\n"+strings.Repeat(" ", 14))
	default:
		comment = strings.ReplaceAll(strings.TrimSpace(value.Str(x)), "\n", "\n"+strings.Repeat(" ", 14))
	}
	if d, ok := ret.Get("data"); ok {
		switch x := d.(type) {
		case *value.List:
			for _, it := range x.Items {
				comment = comment + " " + value.Str(it)
			}
		case *value.Map:
			x.Range(func(k, v any) bool {
				comment = fmt.Sprintf("%s\n\t\t%s: %s", comment, value.Str(k), value.Str(v))
				return true
			})
		default:
			comment = comment + " " + value.Str(d)
		}
	}
	return comment
}

// formatChanges is _format_changes.
func (h *hsFormatter) formatChanges(changes any) (bool, string) {
	if !value.Truthy(changes) {
		return false, ""
	}
	m, ok := changes.(*value.Map)
	if !ok {
		return true, "Invalid Changes data: " + value.Str(changes)
	}
	if r, ok := m.Get("ret"); ok && r != nil && value.Str(mapVal(m, "out")) == "highstate" {
		if rm, ok := r.(*value.Map); ok {
			ctext := ""
			changed := false
			rm.Range(func(host, hostdata any) bool {
				s, ch := h.formatHost(value.Str(host), hostdata, 1)
				for _, l := range pyops.SplitLines(s, false) {
					ctext += "\n" + strings.Repeat(" ", 14) + l
				}
				changed = changed || ch
				return true
			})
			return changed, ctext
		}
	}
	n := &Nested{C: h.c, KeepEsc: keepEsc(h.o)}
	lines := n.Display(m, 14, "", nil)
	// out_format rstrips the nested text as str.rstrip does.
	return true, "\n" + strings.TrimRightFunc(strings.Join(lines, "\n"), func(r rune) bool {
		return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f
	})
}

// formatTerse is _format_terse: one line per state.
func (h *hsFormatter) formatTerse(tcolor string, comps []string, ret *value.Map, tabular any, profile bool) string {
	c := h.c
	result := "Clean"
	if value.Truthy(mapVal(ret, "changes")) {
		result = "Changed"
	}
	switch mapVal(ret, "result") {
	case false:
		result = "Failed"
	case nil:
		result = "Differs"
	}
	warnings := func(sep string) string {
		w, ok := ret.Get("warnings")
		if !ok {
			return ""
		}
		return fmt.Sprintf("%sWarnings:\n%s%s%s", c.LightRed, joinWarnings(w), c.EndC, sep)
	}
	startTime, hasStart := ret.Get("start_time")
	dur := value.Str(mapVal(ret, "duration"))
	if tabular == true {
		s := warnings("\n") + tcolor
		if profile && hasStart {
			s += fmt.Sprintf("%s [%7s ms] ", value.Str(startTime), dur)
		}
		s += fmt.Sprintf("%10s.%-10s %-7s   Name: %s%s", comps[0], comps[3], result, comps[2], c.EndC)
		return s
	}
	if ts, ok := tabular.(string); ok {
		// A user format string, given what Salt passes str.format.
		args := []any{tcolor, comps[2], comps[0], comps[len(comps)-1], result, c.EndC, ret}
		s, err := pyops.FormatString(ts, args, nil, nil)
		if err != nil && h.err == nil {
			h.err = err
		}
		return s
	}
	s := warnings("")
	s += fmt.Sprintf(" %s Name: %s - Function: %s.%s - Result: %s", tcolor, comps[2], comps[0], comps[len(comps)-1], result)
	if profile && hasStart {
		s += fmt.Sprintf(" - Started: %s - Duration: %s ms", value.Str(startTime), dur)
	}
	return s + c.EndC
}

// textwrapFill is Python's textwrap.fill with the given width and indents
// and TextWrapper's other defaults: whitespace becomes spaces, lines break
// between words or after a hyphen inside a word, and words longer than a
// line are cut.
func textwrapFill(text string, width int, initial, subsequent string) string {
	chunks := wrapChunks(expandTabs(text))
	var lines []string
	for len(chunks) > 0 {
		indent := subsequent
		if len(lines) == 0 {
			indent = initial
		}
		lineWidth := width - len([]rune(indent))
		if len(lines) > 0 && strings.TrimSpace(chunks[0]) == "" {
			chunks = chunks[1:]
		}
		var cur []string
		curLen := 0
		for len(chunks) > 0 {
			n := len([]rune(chunks[0]))
			if curLen+n > lineWidth {
				break
			}
			cur = append(cur, chunks[0])
			curLen += n
			chunks = chunks[1:]
		}
		if len(chunks) > 0 && len([]rune(chunks[0])) > lineWidth {
			// _handle_long_word
			spaceLeft := max(lineWidth-curLen, 1)
			r := []rune(chunks[0])
			end := spaceLeft
			if len(r) > spaceLeft {
				if hy := lastIndexRune(r[:spaceLeft], '-'); hy > 0 && strings.Trim(string(r[:hy]), "-") != "" {
					end = hy + 1
				}
			}
			end = min(end, len(r))
			cur = append(cur, string(r[:end]))
			curLen += end
			chunks[0] = string(r[end:])
			if chunks[0] == "" {
				chunks = chunks[1:]
			}
		}
		if len(cur) > 0 && strings.TrimSpace(cur[len(cur)-1]) == "" {
			cur = cur[:len(cur)-1]
		}
		if len(cur) > 0 {
			lines = append(lines, indent+strings.Join(cur, ""))
		}
	}
	return strings.Join(lines, "\n")
}

func lastIndexRune(r []rune, c rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if r[i] == c {
			return i
		}
	}
	return -1
}

// expandTabs is str.expandtabs() followed by TextWrapper's whitespace
// replacement.
func expandTabs(s string) string {
	var b strings.Builder
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n', '\r':
			b.WriteByte(' ')
			col = 0
		case '\v', '\f':
			b.WriteByte(' ')
			col++
		default:
			b.WriteRune(r)
			col++
		}
	}
	return b.String()
}

// isWord is Python's \w; isLetter is textwrap's [^\d\W] (\w without
// digits, so "_" counts); isWordPunct is its [\w!"'&.,?].
func isWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r)
}

func isLetter(r rune) bool { return isWord(r) && !unicode.IsDigit(r) }

func isWordPunct(r rune) bool { return isWord(r) || strings.ContainsRune("!\"'&.,?", r) }

func isWrapSpace(r rune) bool { return strings.ContainsRune("\t\n\v\f\r ", r) }

// wrapChunks splits text as TextWrapper.wordsep_re does: runs of
// whitespace, em-dashes between words, and words, which break after a
// hyphen between letters and before an em-dash.
func wrapChunks(text string) []string {
	r := []rune(text)
	n := len(r)
	at := func(k int) rune {
		if k < 0 || k >= n {
			return 0
		}
		return r[k]
	}
	letter := func(k int) bool { return k >= 0 && k < n && isLetter(r[k]) }
	// emDashAhead reports whether -{2,}\w starts at k.
	emDashAhead := func(k int) bool {
		j := k
		for j < n && r[j] == '-' {
			j++
		}
		return j-k >= 2 && j < n && isWord(r[j])
	}
	var chunks []string
	for i := 0; i < n; {
		j := i + 1
		switch {
		case isWrapSpace(r[i]):
			for j < n && isWrapSpace(r[j]) {
				j++
			}
		case i > 0 && isWordPunct(r[i-1]) && emDashAhead(i):
			j = i
			for r[j] == '-' {
				j++
			}
		default:
			for e := i + 1; ; e++ {
				if at(e) == '-' && (letter(e-1) && letter(e-2) || letter(e-1) && at(e-2) == '-' && letter(e-3)) &&
					letter(e+1) && (letter(e+2) || at(e+2) == '-' && letter(e+3)) {
					j = e + 1
					break
				}
				if e == n || isWrapSpace(r[e]) {
					j = e
					break
				}
				if isWordPunct(r[e-1]) && emDashAhead(e) {
					j = e
					break
				}
			}
		}
		chunks = append(chunks, string(r[i:j]))
		i = j
	}
	return chunks
}

// compressIDs is _compress_ids: states of one ID with the same module,
// SLS and result are folded into one entry. As in Salt, any data it cannot
// fold (a host whose data is not a mapping, a state missing __id__,
// __sls__, result, a duration that is not a number, ...) leaves the whole
// output uncompressed.
func compressIDs(data *value.Map) *value.Map {
	c := compressor{}
	out := value.NewMap(data.Len())
	data.Range(func(host, hd any) bool {
		if comp := c.host(hd); comp != nil {
			out.Set(host, comp)
		}
		return !c.bad
	})
	if c.bad {
		return data
	}
	return out
}

// compressor folds one host's states; bad records that some data could
// not be folded, which leaves the whole output as it was.
type compressor struct{ bad bool }

// get is Python's d[k]: a missing key marks the data unfoldable.
func (c *compressor) get(m *value.Map, k string) any {
	v, ok := m.Get(k)
	if !ok {
		c.bad = true
	}
	return v
}

// info is a state's return, which must be a mapping.
func (c *compressor) info(v any) *value.Map {
	m, ok := v.(*value.Map)
	if !ok {
		c.bad = true
		return value.NewMap(0)
	}
	return m
}

// key is _compress_ids' grouping key: module, ID, SLS and result.
func (c *compressor) key(tname string, in *value.Map) string {
	mod, _, _ := strings.Cut(tname, "_|-")
	return strings.Join([]string{mod, value.Str(c.get(in, "__id__")), value.Str(c.get(in, "__sls__")), value.Str(c.get(in, "result"))}, "_")
}

func (c *compressor) host(hd any) *value.Map {
	hostdata, isMap := hd.(*value.Map)
	if !isMap {
		c.bad = true
		return nil
	}
	count := map[string]int{}
	hostdata.Range(func(k, v any) bool {
		count[c.key(value.Str(k), c.info(v))]++
		return !c.bad
	})
	if c.bad {
		return nil
	}
	comp := value.NewMap(hostdata.Len())
	hostdata.Range(func(k, v any) bool {
		c.fold(comp, value.Str(k), k, c.info(v), count)
		return !c.bad
	})
	return comp
}

// fold adds one state to comp, merging it into the compressed entry of
// its group when the group has more than one state.
func (c *compressor) fold(comp *value.Map, tname string, k any, in *value.Map, count map[string]int) {
	id := c.key(tname, in)
	if c.bad {
		return
	}
	if count[id] == 1 {
		comp.Set(k, in)
		return
	}
	comps := strings.Split(tname, "_|-")
	if len(comps) < 3 {
		c.bad = true
		return
	}
	comps[2] = strings.Join([]string{"state_compressed", value.Str(c.get(in, "__sls__")), value.Str(c.get(in, "__id__")), value.Str(c.get(in, "result"))}, "_")
	comps[1] = fmt.Sprintf("%s (%d)", value.Str(c.get(in, "__id__")), count[id])
	nt := strings.Join(comps, "_|-")
	prevV, exists := comp.Get(nt)
	if !exists {
		comp.Set(nt, in.Copy())
		return
	}
	prev := prevV.(*value.Map)
	a, b := c.get(in, "__run_num__"), c.get(prev, "__run_num__")
	da, db := c.get(in, "duration"), c.get(prev, "duration")
	sa, sb := c.get(in, "start_time"), c.get(prev, "start_time")
	ssa, okA := sa.(string)
	ssb, okB := sb.(string)
	if c.bad || !value.IsNumber(a) || !value.IsNumber(b) || !value.IsNumber(da) || !value.IsNumber(db) || !okA || !okB {
		c.bad = true
		return
	}
	if value.ToFloat(a) < value.ToFloat(b) {
		prev.Set("__run_num__", a)
	}
	prev.Set("duration", pyRound3(value.ToFloat(da)+value.ToFloat(db)))
	if ssa < ssb {
		prev.Set("start_time", sa)
	}
	pc := mapVal(prev, "changes")
	ic := mapVal(in, "changes")
	switch {
	case value.Truthy(pc) && value.Truthy(ic):
		pcm, isMap := pc.(*value.Map)
		if !isMap {
			c.bad = true
			return
		}
		if !value.Truthy(mapVal(pcm, "compressed changes")) {
			pcm = value.MapOf("compressed changes", value.MapOf(c.get(prev, "name"), pc))
			prev.Set("changes", pcm)
		}
		cc, isMap := mapVal(pcm, "compressed changes").(*value.Map)
		if !isMap {
			c.bad = true
			return
		}
		cc.Set(c.get(in, "name"), ic)
	case value.Truthy(ic):
		prev.Set("changes", value.MapOf("compressed changes", value.MapOf(c.get(in, "name"), ic)))
	}
}

func pyRound3(f float64) float64 { return pyRound(f, 3) }
