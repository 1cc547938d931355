package modules

// archive_rar.go is archive.rar and archive.unrar of
// salt/modules/archive.py: the rar and unrar commands run through
// cmd.run, their output lines returned. On Debian only unrar-free is
// packaged (as /usr/bin/unrar, an alternative); it takes the same
// command line, though it reads -x as "extract" rather than "exclude".

import (
	"os/exec"
	"regexp"
	"strings"

	"brine/internal/execmod"
	"brine/internal/pyops"
	"brine/internal/system/archive"
	"brine/internal/value"
)

func init() {
	execmod.Register("archive.rar", archiveRar, "Create rarfile from sources (comma list or list, globs expanded) with rar; the output lines.")
	execmod.Register("archive.unrar", archiveUnrar, "Extract rarfile into dest with unrar (else rar), excluding excludes; the output lines (trim_output).")
}

func archiveRar(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rar", args, kwargs, execmod.Req("rarfile"), execmod.Req("sources"), execmod.Opt("template", nil),
		execmod.Opt("cwd", nil), execmod.Opt("runas", nil))
	if err != nil {
		return nil, err
	}
	if err := needCmd("rar"); err != nil {
		return nil, err
	}
	argv := append([]string{"rar", "a", "-idp", value.Str(v[0])}, expandSources(v[1])...)
	return archiveRunLines(ctx, argv, v[3], v[2], v[4])
}

// whichBin is salt.utils.path.which_bin: the path of the first of names
// found in $PATH.
func whichBin(names ...string) (string, error) {
	quoted := make([]string, len(names))
	for i, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
		quoted[i] = `"'` + n + `'"`
	}
	return "", &commandNotFound{msg: "None of provided binaries([" + strings.Join(quoted, ", ") + "]) were found in $PATH."}
}

func archiveUnrar(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("unrar", args, kwargs, execmod.Req("rarfile"), execmod.Req("dest"), execmod.Opt("excludes", nil),
		execmod.Opt("template", nil), execmod.Opt("runas", nil), execmod.Opt("trim_output", false))
	if err != nil {
		return nil, err
	}
	bin, err := whichBin("unrar", "rar")
	if err != nil {
		return nil, err
	}
	argv := []string{bin, "x", "-idp", value.Str(v[0])}
	var excludes []string
	switch x := v[2].(type) {
	case nil:
	case string:
		excludes = splitComma(x)
	case *value.List:
		for _, it := range x.Items {
			excludes = append(excludes, value.Str(it))
		}
	case *value.Map:
		x.Range(func(k, _ any) bool { excludes = append(excludes, value.Str(k)); return true })
	default:
		return nil, &execmod.TypeError{Msg: "'" + pyTypeName(x) + "' object is not iterable"}
	}
	for _, e := range excludes {
		argv = append(argv, "-x", e)
	}
	argv = append(argv, value.Str(v[1]))
	out, err := runArgv(ctx, "cmd.run", argv, "template", v[3], "runas", v[4])
	if err != nil {
		return nil, err
	}
	return strList(trimFiles(pyops.SplitLines(execmod.String(out), false), v[5])), nil
}

var rarListEntry = regexp.MustCompile(`Name:\s*([^\n]+)\s*Type:\s*([^\n]+)`)

// listRar is archive.list's _list_rar without Python's rarfile module:
// the names and types "rar lt" prints for the archive (name, not its
// cached copy, as in Salt).
func listRar(ctx *execmod.Context, name string) (*archive.Contents, error) {
	if _, err := exec.LookPath("rar"); err != nil {
		return nil, execmod.Errorf("rar command not available, is it installed?")
	}
	out, err := runArgv(ctx, "cmd.run", []string{"rar", "lt", name}, "ignore_retcode", false)
	if err != nil {
		return nil, err
	}
	text := execmod.String(out)
	c := &archive.Contents{}
	for _, m := range rarListEntry.FindAllStringSubmatch(text, -1) {
		kind := byte('f')
		if m[2] == "Directory" {
			kind = 'd'
		}
		c.Members = append(c.Members, archive.Member{Name: m[1], RawName: m[1], Kind: kind})
	}
	if len(c.Members) == 0 {
		return nil, archiveInfoError("Failed to list "+name+", is it a rar file? If so, the installed version of rar may be too old "+
			"to list data in a parsable format. Installing the rarfile Python module may be an easier workaround if newer rar "+
			"is not readily available.", "error", text)
	}
	return c, nil
}
