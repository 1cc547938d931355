package states

// filepatch.go is file.patch: apply a patch (from salt:// or a local path)
// with the system's patch tool, idempotently.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"brine/internal/fileops"
	"brine/internal/pyops"
	"brine/internal/statemod"
	"brine/internal/system"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "file.patch", Kwargs: true, Run: filePatch,
		Doc: "Ensure that a patch has been applied to the specified file or directory.",
		Params: []statemod.Param{statemod.Req("name"), p("source", nil), p("source_hash", nil), p("source_hash_name", nil),
			p("skip_verify", false), p("template", nil), p("context", nil), p("defaults", nil), p("options", ""),
			p("reject_file", nil), p("strip", nil), p("saltenv", nil)}})
}

// runPatch is the file.patch execution function.
func runPatch(c *statemod.Call, target, patchFile string, options []string, dryRun bool) (*value.Map, error) {
	patchPath, err := exec.LookPath("patch")
	if err != nil {
		return nil, fmt.Errorf("patch executable not found. Is the distribution's patch package installed?")
	}
	cmd := append([]string{patchPath}, options...)
	if dryRun {
		cmd = append(cmd, "--dry-run")
	}
	hasForward, hasReject, hasStrip := false, false, false
	for _, o := range cmd {
		switch {
		case o == "-N" || o == "--forward":
			hasForward = true
		case o == "-r" || strings.HasPrefix(o, "-r ") || strings.HasPrefix(o, "--reject-file"):
			hasReject = true
		}
		if strings.HasPrefix(o, "-p") || strings.HasPrefix(o, "--strip=") {
			hasStrip = true
		}
	}
	if !hasForward {
		cmd = append(cmd, "--forward")
	}
	if !hasReject {
		cmd = append(cmd, "--reject-file=-")
	}
	cmd = append(cmd, "-i", patchFile)
	if isDir(target) {
		cmd = append(cmd, "-d", target)
		if !hasStrip {
			cmd = append(cmd, "--strip=0")
		}
	} else {
		cmd = append(cmd, target)
	}
	l := value.NewList()
	for _, a := range cmd {
		l.Append(a)
	}
	out, err := c.Salt("cmd.run_all", []any{l}, value.MapOf("python_shell", false))
	if err != nil {
		return nil, err
	}
	m, _ := out.(*value.Map)
	if m == nil {
		return nil, fmt.Errorf("cmd.run_all returned no result")
	}
	return m, nil
}

func filePatch(c *statemod.Call) (*value.Map, error) {
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", false, "comment", "")
	if _, err := exec.LookPath("patch"); err != nil {
		ret.Set("comment", "patch executable not found on minion")
		return ret, nil
	}
	name := c.Str("name")
	if name == "" {
		ret.Set("comment", "A file/directory to be patched is required")
		return ret, nil
	}
	name = fileops.ExpandUser(name)
	switch {
	case !filepath.IsAbs(name):
		ret.Set("comment", fmt.Sprintf("%s is not an absolute path", name))
		return ret, nil
	case !exists(name):
		ret.Set("comment", fmt.Sprintf("%s does not exist", name))
		return ret, nil
	}
	dir := isDir(name)
	if rf := c.Get("reject_file"); rf != nil {
		parent := filepath.Dir(value.Str(rf))
		if !filepath.IsAbs(parent) {
			ret.Set("comment", fmt.Sprintf("'%s' is not an absolute path", value.Str(rf)))
			return ret, nil
		}
		if !isDir(parent) {
			ret.Set("comment", fmt.Sprintf("Parent directory for reject_file '%s' either does not exist, or is not a directory", value.Str(rf)))
			return ret, nil
		}
	}
	opts, err := system.ShlexSplit(c.Str("options"))
	if err != nil {
		return nil, err
	}
	strip := c.Get("strip")
	var sanitized, blacklisted []string
	for i := 0; i < len(opts); i++ {
		o := opts[i]
		for _, b := range []string{"-N", "--forward", "-r", "--reject-file", "-o", "--output"} {
			if strings.HasPrefix(o, b) {
				blacklisted = append(blacklisted, o)
				break
			}
		}
		switch {
		case strings.HasPrefix(o, "-p"):
			n, err := strconv.Atoi(o[2:])
			if err != nil {
				ret.Set("comment", "Invalid format for '-p' CLI option. Consider using the 'strip' option for this state.")
				return ret, nil
			}
			strip = int64(n)
		case strings.HasPrefix(o, "--strip"):
			val := ""
			if _, after, ok := strings.Cut(o, "="); ok {
				val = after
			} else if i+1 < len(opts) {
				val = opts[i+1]
				i++
			}
			n, err := strconv.Atoi(val)
			if err != nil {
				ret.Set("comment", "Invalid format for '-strip' CLI option. Consider using the 'strip' option for this state.")
				return ret, nil
			}
			strip = int64(n)
		default:
			sanitized = append(sanitized, o)
		}
	}
	if len(blacklisted) > 0 {
		ret.Set("comment", "The following CLI options are not allowed: "+strings.Join(blacklisted, ", "))
		return ret, nil
	}
	source, err := sourceList(c, c.Get("source"))
	if err != nil {
		ret.Set("comment", err.Error())
		return ret, nil
	}
	if env := c.Get("saltenv"); env != nil && strings.HasPrefix(source, "salt://") && !strings.Contains(source, "?saltenv=") {
		source += "?saltenv=" + value.Str(env)
	}
	var cleanup []string
	defer func() {
		for _, p := range cleanup {
			os.Remove(p)
		}
	}()
	tmp := func() (string, error) {
		f, err := os.CreateTemp("", "__salt.tmp.")
		if err != nil {
			return "", err
		}
		f.Close()
		cleanup = append(cleanup, f.Name())
		return f.Name(), nil
	}
	patchFile, err := tmp()
	if err != nil {
		return nil, err
	}
	os.Remove(patchFile)
	mc := *c
	mc.Test = false
	mf, _ := statemod.Default.Lookup("file.managed")
	margs, _ := mf.BindArgs(value.MapOf("name", patchFile, "source", source, "source_hash", c.Get("source_hash"),
		"source_hash_name", c.Get("source_hash_name"), "skip_verify", c.Get("skip_verify"), "template", c.Get("template"),
		"context", c.Get("context"), "defaults", c.Get("defaults")))
	mc.Fun, mc.Args = mf, margs
	mret, err := fileManaged(&mc)
	if err != nil {
		ret.Set("comment", fmt.Sprintf("Failed to cache patch file %s: %v", source, err))
		return ret, nil
	}
	if !c.Test && mapGet(mret, "result") != true {
		return mret, nil
	}
	rejects := value.Str(c.Get("reject_file"))
	if c.Get("reject_file") == nil {
		if rejects, err = tmp(); err != nil {
			return nil, err
		}
	}
	output, err := tmp()
	if err != nil {
		return nil, err
	}
	patchOpts := []string{"-N", "-r", rejects, "-o", output}
	if dir && strip != nil {
		patchOpts = append(patchOpts, fmt.Sprintf("-p%d", int64(value.ToFloat(strip))))
	}
	pre, err := runPatch(c, name, patchFile, append(append([]string(nil), sanitized...), patchOpts...), false)
	if err != nil {
		return nil, err
	}
	if !value.Equal(mapGet(pre, "retcode"), int64(0)) {
		rev, err := runPatch(c, name, rejects, append(append([]string(nil), sanitized...), "-R", "-f"), true)
		if err != nil {
			return nil, err
		}
		already := value.Equal(mapGet(rev, "retcode"), int64(0))
		if value.Equal(mapGet(pre, "retcode"), int64(2)) && value.Truthy(mapGet(pre, "stderr")) {
			ret.Set("comment", mapGet(pre, "stderr"))
			return ret, nil
		}
		if already {
			ret.Set("comment", "Patch was already applied")
			ret.Set("result", true)
			return ret, nil
		}
		cm := "Patch would not apply cleanly, no changes made. Results of dry-run are below."
		if c.Get("reject_file") == nil {
			cm += " Run state again using the reject_file option to save rejects to a persistent file."
		}
		ret.Set("comment", cm+"\n\n"+nestedText(pre, 14))
		return ret, nil
	}
	if c.Test {
		ret.Set("result", nil)
		ret.Set("comment", "The patch would be applied")
		ret.Set("changes", pre)
		return ret, nil
	}
	var applyOpts []string
	if dir && strip != nil {
		applyOpts = append(applyOpts, fmt.Sprintf("-p%d", int64(value.ToFloat(strip))))
	}
	res, err := runPatch(c, name, patchFile, append(append([]string(nil), sanitized...), applyOpts...), false)
	if err != nil {
		return nil, err
	}
	ret.Set("changes", res)
	if value.Equal(mapGet(res, "retcode"), int64(0)) {
		ret.Set("comment", "Patch successfully applied")
		ret.Set("result", true)
	} else {
		ret.Set("comment", "Failed to apply patch")
	}
	return ret, nil
}

// nestedText renders m as the nested outputter does without colours, at
// the given indent (for messages that embed command results).
func nestedText(m *value.Map, indent int) string {
	var lines []string
	pad := strings.Repeat(" ", indent)
	for _, k := range sortedStrKeys(m) {
		v, _ := m.Get(k)
		lines = append(lines, pad+k+":")
		for _, l := range pyops.SplitLines(value.Str(v), false) {
			lines = append(lines, pad+"    "+l)
		}
	}
	return strings.Join(lines, "\n")
}

func sortedStrKeys(m *value.Map) []string {
	var out []string
	for _, k := range m.Keys() {
		out = append(out, value.Str(k))
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
