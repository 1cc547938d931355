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
		return value.Str(x)
	case string:
		return x
	case nil:
		return "None"
	}
	m, ok := data.(*value.Map)
	if !ok {
		return value.Str(data)
	}
	if value.Truthy(optGet(h.o, "state_compress_ids", false)) {
		var err error
		if m, err = compressIDs(m); err != nil {
			h.err = err
			return ""
		}
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
	switch x := data.(type) {
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
			hstrs = append(hstrs, fmt.Sprintf("%s----------\n    %s%s", hcolor, stripEsc(value.Str(e)), c.EndC))
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
				hstrs = append([]string{"The State execution failed to record the order in which all states were executed. The state return missing data is:", value.Repr(info)}, hstrs...)
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
			rkey := resultKey(result)
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
				var ws []string
				if l, ok := w.(*value.List); ok {
					for _, it := range l.Items {
						ws = append(ws, value.Str(it))
					}
				} else {
					ws = []string{value.Str(w)}
				}
				filled := textwrapFill(strings.Join(ws, "\n"), 80, strings.Repeat(" ", 14), strings.Repeat(" ", 14))
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
		total := rcounts[true] + rcounts[false] + rcounts[nil]
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
	host = stripEsc(host)
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

func resultKey(v any) any {
	switch x := v.(type) {
	case nil:
		return nil
	case bool:
		return x
	}
	return value.Truthy(v)
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

func pyRound2(f float64) float64 { return math.Round(f*100) / 100 }

func splitOpt(v any) []string {
	switch x := v.(type) {
	case string:
		return strings.Split(x, ",")
	case *value.List:
		out := make([]string, len(x.Items))
		for i, it := range x.Items {
			out[i] = value.Str(it)
		}
		return out
	}
	return nil
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
	n := &Nested{C: h.c}
	lines := n.Display(m, 14, "", nil)
	return true, "\n" + strings.TrimRight(strings.Join(lines, "\n"), " \t\n\r\v\f")
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
		var ws []string
		if l, ok := w.(*value.List); ok {
			for _, it := range l.Items {
				ws = append(ws, value.Str(it))
			}
		}
		return fmt.Sprintf("%sWarnings:\n%s%s%s", c.LightRed, strings.Join(ws, "\n"), c.EndC, sep)
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
	if ts, ok := tabular.(string); ok && ts != "" {
		return ts
	}
	s := warnings("")
	s += fmt.Sprintf(" %s Name: %s - Function: %s.%s - Result: %s", tcolor, comps[2], comps[0], comps[len(comps)-1], result)
	if profile && hasStart {
		s += fmt.Sprintf(" - Started: %s - Duration: %s ms", value.Str(startTime), dur)
	}
	return s + c.EndC
}

// textwrapFill is Python's textwrap.fill with the given width and indents
// (whitespace collapsed, words never broken unless longer than a line).
func textwrapFill(text string, width int, initial, subsequent string) string {
	words := strings.Fields(text)
	var lines []string
	cur := initial
	empty := true
	for _, w := range words {
		indent := subsequent
		if len(lines) == 0 {
			indent = initial
		}
		if !empty && len(cur)+1+len(w) > width {
			lines = append(lines, cur)
			cur = subsequent + w
			continue
		}
		if empty {
			cur = indent + w
			empty = false
		} else {
			cur += " " + w
		}
	}
	if !empty {
		lines = append(lines, cur)
	}
	return strings.Join(lines, "\n")
}

// compressIDs is _compress_ids: states of one ID with the same module,
// SLS and result are folded into one entry.
func compressIDs(data *value.Map) (*value.Map, error) {
	var err error
	out := value.NewMap(data.Len())
	data.Range(func(host, hd any) bool {
		hostdata, ok := hd.(*value.Map)
		if !ok {
			out.Set(host, hd)
			return true
		}
		key := func(tname string, info *value.Map) string {
			mod, _, _ := strings.Cut(tname, "_|-")
			return strings.Join([]string{mod, value.Str(mapVal(info, "__id__")), value.Str(mapVal(info, "__sls__")), value.Str(mapVal(info, "result"))}, "_")
		}
		count := map[string]int{}
		okAll := true
		hostdata.Range(func(k, v any) bool {
			info, isMap := v.(*value.Map)
			if !isMap {
				okAll = false
				return false
			}
			count[key(value.Str(k), info)]++
			return true
		})
		if !okAll {
			out.Set(host, hd)
			return true
		}
		comp := value.NewMap(hostdata.Len())
		hostdata.Range(func(k, v any) bool {
			tname := value.Str(k)
			info := v.(*value.Map)
			id := key(tname, info)
			if count[id] == 1 {
				comp.Set(tname, info)
				return true
			}
			comps := strings.Split(tname, "_|-")
			if len(comps) != 4 {
				comp.Set(tname, info)
				return true
			}
			comps[2] = strings.Join([]string{"state_compressed", value.Str(mapVal(info, "__sls__")), value.Str(mapVal(info, "__id__")), value.Str(mapVal(info, "result"))}, "_")
			comps[1] = fmt.Sprintf("%s (%d)", value.Str(mapVal(info, "__id__")), count[id])
			nt := strings.Join(comps, "_|-")
			prevV, exists := comp.Get(nt)
			if !exists {
				comp.Set(nt, info.Copy())
				return true
			}
			prev := prevV.(*value.Map)
			prev.Set("__run_num__", int64(math.Min(runNum(info), runNum(prev))))
			prev.Set("duration", pyRound3(durationFloat(mapVal(info, "duration"))+durationFloat(mapVal(prev, "duration"))))
			if a, b := value.Str(mapVal(info, "start_time")), value.Str(mapVal(prev, "start_time")); a < b {
				prev.Set("start_time", a)
			}
			pc, _ := mapVal(prev, "changes").(*value.Map)
			ic := mapVal(info, "changes")
			if value.Truthy(pc) && value.Truthy(ic) {
				if !value.Truthy(mapVal(pc, "compressed changes")) {
					prev.Set("changes", value.MapOf("compressed changes", value.MapOf(value.Str(mapVal(prev, "name")), pc)))
				}
				pcm, _ := mapVal(prev, "changes").(*value.Map)
				cc, ok := mapVal(pcm, "compressed changes").(*value.Map)
				if !ok {
					err = fmt.Errorf("TypeError: %s object does not support item assignment", value.Repr(value.TypeName(mapVal(pcm, "compressed changes"))))
					return false
				}
				cc.Set(value.Str(mapVal(info, "name")), ic)
			} else if value.Truthy(ic) {
				prev.Set("changes", value.MapOf("compressed changes", value.MapOf(value.Str(mapVal(info, "name")), ic)))
			}
			return true
		})
		if err != nil {
			return false
		}
		out.Set(host, comp)
		return true
	})
	return out, err
}

func pyRound3(f float64) float64 { return math.Round(f*1000) / 1000 }
