package fileops

// line.go: file.line and its helper _set_line.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"brine/internal/value"
)

// regexToStatic is _regex_to_static: the lines regex finds (or that
// contain it literally).
func regexToStatic(lines []string, regex any) ([]string, error) {
	if len(lines) == 0 || !value.Truthy(regex) {
		return nil, nil
	}
	pat := value.Str(regex)
	re, err := regexp.Compile("(?s)" + pat)
	if err != nil {
		return nil, fmt.Errorf("%v: '%s'", err, pat)
	}
	var out []string
	for _, l := range lines {
		if re.MatchString(l) || strings.Contains(l, pat) {
			out = append(out, l)
		}
	}
	return out, nil
}

func setLineIndent(src, line string, indent bool) string {
	if !indent {
		return line
	}
	i := 0
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return src[:i] + strings.TrimLeft(line, " \t\n\r\v\f")
}

func getEOL(line string) string {
	switch {
	case strings.HasSuffix(line, "\r\n"):
		return "\r\n"
	case strings.HasSuffix(line, "\n"):
		return "\n"
	case strings.HasSuffix(line, "\r"):
		return "\r"
	}
	return ""
}

func setLineEOL(src, line string) string {
	eol := getEOL(src)
	if eol == "" {
		eol = "\n"
	}
	return strings.TrimRight(line, " \t\n\r\v\f") + eol
}

func indexOf(lines []string, s string) int {
	for i, l := range lines {
		if l == s {
			return i
		}
	}
	return -1
}

func assertOne(probe []string, target string) error {
	switch {
	case len(probe) > 1:
		return fmt.Errorf("Found more than expected occurrences in \"%s\" expression", target)
	case len(probe) < 1:
		return fmt.Errorf("Found less than expected occurrences in \"%s\" expression", target)
	}
	return nil
}

func insertAt(lines []string, i int, s string) []string {
	lines = append(lines, "")
	copy(lines[i+1:], lines[i:])
	lines[i] = s
	return lines
}

// SetLine is file._set_line.
func SetLine(lines []string, content *string, matchArg any, mode string, location, beforeArg, afterArg any, indent bool) ([]string, error) {
	cont := ""
	if content != nil {
		cont = *content
	}
	if !value.Truthy(matchArg) && beforeArg == nil && afterArg == nil && content != nil {
		matchArg = cont
	}
	after, err := regexToStatic(lines, afterArg)
	if err != nil {
		return nil, err
	}
	before, err := regexToStatic(lines, beforeArg)
	if err != nil {
		return nil, err
	}
	match, err := regexToStatic(lines, matchArg)
	if err != nil {
		return nil, err
	}
	switch {
	case len(lines) == 0 && (mode == "delete" || mode == "replace"):
		return nil, nil
	case mode == "delete" && match != nil:
		var out []string
		for _, l := range lines {
			if l != match[0] {
				out = append(out, l)
			}
		}
		return out, nil
	case mode == "replace" && match != nil:
		idx := indexOf(lines, match[0])
		lines[idx] = setLineIndent(lines[idx], cont, indent)
	case mode == "insert":
		if beforeArg == nil && afterArg == nil && location == nil {
			return nil, errors.New(`On insert either "location" or "before/after" conditions are required.`)
		}
		if value.Truthy(location) {
			switch value.Str(location) {
			case "end":
				if len(lines) > 0 {
					lines = append(lines, setLineIndent(lines[len(lines)-1], cont, indent))
				} else {
					lines = append(lines, cont)
				}
			case "start":
				if len(lines) > 0 {
					lines = insertAt(lines, 0, setLineEOL(lines[0], cont))
				} else {
					lines = []string{cont + "\n"}
				}
			}
			return lines, nil
		}
		switch {
		case before != nil && after != nil:
			if err := assertOne(before, "before"); err != nil {
				return nil, err
			}
			if err := assertOne(after, "after"); err != nil {
				return nil, err
			}
			last := indexOf(lines, before[0])
			lines = insertAt(lines, last, setLineIndent(lines[last], cont, indent))
		case after != nil:
			if err := assertOne(after, "after"); err != nil {
				return nil, err
			}
			idx := indexOf(lines, after[0])
			if idx+1 >= len(lines) || strings.TrimRight(lines[idx+1], "\r\n") != strings.TrimRight(cont, "\r\n") {
				lines = insertAt(lines, idx+1, setLineIndent(lines[idx], cont, indent))
			}
		case before != nil:
			if err := assertOne(before, "before"); err != nil {
				return nil, err
			}
			idx := indexOf(lines, before[0])
			prev := lines[(idx-1+len(lines))%len(lines)]
			if strings.TrimRight(prev, "\r\n") != strings.TrimRight(cont, "\r\n") {
				lines = insertAt(lines, idx, setLineIndent(lines[idx], cont, indent))
			}
		default:
			return nil, errors.New("Neither before or after was found in file")
		}
	case mode == "ensure":
		switch {
		case before != nil && after != nil:
			if err := assertOne(after, "after"); err != nil {
				return nil, err
			}
			if err := assertOne(before, "before"); err != nil {
				return nil, err
			}
			ai, bi := indexOf(lines, after[0]), indexOf(lines, before[0])
			there := false
			for _, l := range lines {
				if strings.TrimLeft(l, " \t\n\r\v\f") == cont {
					there = true
				}
			}
			if !there {
				switch {
				case ai+1 == bi:
					lines = insertAt(lines, ai+1, setLineIndent(lines[ai], cont, indent))
				case ai+2 == bi:
					lines[ai+1] = setLineIndent(lines[ai], cont, indent)
				default:
					return nil, errors.New(`Found more than one line between boundaries "before" and "after".`)
				}
			}
		case before != nil:
			if err := assertOne(before, "before"); err != nil {
				return nil, err
			}
			bi := indexOf(lines, before[0])
			if bi == 0 || strings.TrimRight(lines[bi-1], "\r\n") != strings.TrimRight(cont, "\r\n") {
				src := lines[(bi-1+len(lines))%len(lines)]
				lines = insertAt(lines, bi, setLineIndent(src, cont, indent))
			}
		case after != nil:
			if err := assertOne(after, "after"); err != nil {
				return nil, err
			}
			ai := indexOf(lines, after[0])
			if ai+1 >= len(lines) || strings.TrimRight(lines[ai+1], "\r\n") != strings.TrimRight(cont, "\r\n") {
				lines = insertAt(lines, ai+1, setLineIndent(lines[ai], cont, indent))
			}
		default:
			return nil, errors.New("Wrong conditions? Unable to ensure line without knowing where to put it before and/or after.")
		}
	}
	return lines, nil
}

// LineOpts are file.line's arguments after the path.
type LineOpts struct {
	Content                     *string
	Match, Location             any
	Mode                        string
	Before, After               any
	Backup, Quiet, Indent, Test bool
}

// Line is file.line: edit path line-wise. It returns the diff of the
// change (empty when nothing changes) and whether the file changed; a
// missing file with Quiet set is no change.
func Line(path string, o LineOpts) (string, bool, error) {
	path = ExpandUser(path)
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		if o.Quiet {
			return "", false, nil
		}
		return "", false, execErrorf("File \"%s\" does not exists or is not a file.", path)
	}
	mode := strings.ToLower(o.Mode)
	switch mode {
	case "insert", "ensure", "delete", "replace":
	case "":
		return "", false, execErrorf("Mode was not defined. How to process the file?")
	default:
		return "", false, execErrorf("Unknown mode: \"%s\"", o.Mode)
	}
	if mode != "delete" && o.Content == nil {
		return "", false, execErrorf("Content can only be empty if mode is \"delete\"")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false, PyOSError(err)
	}
	before := string(data)
	body := SplitLines(before)
	if len(body) > 0 && getEOL(body[len(body)-1]) != "" {
		body = append(body, "")
	}
	if len(data) == 0 && (mode == "delete" || mode == "replace") {
		body = nil
	}
	body, err = SetLine(body, o.Content, o.Match, mode, o.Location, o.Before, o.After, o.Indent)
	if err != nil {
		var fe *Error
		if errors.As(err, &fe) {
			return "", false, err
		}
		return "", false, execErrorf("%v", err)
	}
	for i, l := range body {
		if getEOL(l) == "" && i+1 < len(body) {
			prev := 1
			if i > 0 {
				prev = i - 1
			}
			body[i] = setLineEOL(body[prev], l)
		}
	}
	if len(body) > 0 && body[len(body)-1] == "" {
		body = body[:len(body)-1]
	}
	after := strings.Join(body, "")
	if after == before {
		return "", false, nil
	}
	if !o.Test {
		if o.Backup {
			bk := path + "." + time.Now().Format("2006-01-02-15-04-05")
			if err := CopyFile(path, bk); err != nil {
				return "", false, execErrorf("Unable to create the backup file of %s. Exception: %v", path, err)
			}
		}
		if err := WriteAtomic(path, []byte(after), false); err != nil {
			return "", false, err
		}
	}
	return UnifiedDiff(SplitLines(before), SplitLines(after), "", ""), true, nil
}
