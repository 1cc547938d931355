package modules

// file_attrs.go is file.check_perms and the ext2 attribute functions
// (file.lsattr, file.chattr) of salt/modules/file.py.

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/value"
)

func init() {
	execmod.Register("file.check_perms", fileCheckPerms, "Set user, group, mode (and attrs) of name; returns (ret, perms) as Salt's file.check_perms.")
	execmod.Register("file.lsattr", fileLsattr, "Return the ext2 attributes of path (or of the entries of a directory) as lists of letters.")
	execmod.Register("file.chattr", fileChattr, "Add (operator=add) or remove (operator=remove) ext2 attributes of files.")
}

// chattrExtended is _chattr_has_extended_attrs: e2fsprogs newer than
// 1.41.12 knows the extended attribute letters.
func chattrExtended(ctx *execmod.Context) bool {
	if lookPath("tune2fs") == "" {
		return false
	}
	out, err := ctx.Call("cmd.run", []any{value.NewList("tune2fs")}, value.MapOf("ignore_retcode", true, "python_shell", false))
	if err != nil {
		return false
	}
	m := regexp.MustCompile(`tune2fs ([0-9.]+)`).FindStringSubmatch(value.Str(out))
	if m == nil {
		return false
	}
	return versionGreater(m[1], "1.41.12")
}

// versionGreater compares dotted numeric versions.
func versionGreater(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < max(len(as), len(bs)); i++ {
		var x, y int
		if i < len(as) {
			fmt.Sscan(as[i], &x)
		}
		if i < len(bs) {
			fmt.Sscan(bs[i], &y)
		}
		if x != y {
			return x > y
		}
	}
	return false
}

// lsattrOf is file.lsattr: path -> attribute letters; nil without lsattr.
func lsattrOf(ctx *execmod.Context, path string) (*value.Map, error) {
	if lookPath("lsattr") == "" {
		return nil, nil
	}
	if !existsPath(path) {
		return nil, invocationf("File or directory does not exist: %s", path)
	}
	out, err := ctx.Call("cmd.run", []any{value.NewList("lsattr", path)}, value.MapOf("ignore_retcode", true, "python_shell", false))
	if err != nil {
		return nil, err
	}
	pattern := regexp.MustCompile(`[acdijstuADST]`)
	if chattrExtended(ctx) {
		pattern = regexp.MustCompile(`[aAcCdDeijPsStTu]`)
	}
	res := value.NewMap(0)
	for _, line := range strings.Split(value.Str(out), "\n") {
		if line == "" || strings.HasPrefix(line, "lsattr: ") {
			continue
		}
		f := strings.SplitN(strings.TrimLeft(line, " \t"), " ", 2)
		if len(f) != 2 {
			continue
		}
		letters := value.NewList()
		for _, l := range pattern.FindAllString(f[0], -1) {
			letters.Append(l)
		}
		res.Set(strings.TrimLeft(f[1], " \t"), letters)
	}
	return res, nil
}

func fileLsattr(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("lsattr", args, kwargs, execmod.Req("path"))
	if err != nil {
		return nil, err
	}
	res, err := lsattrOf(ctx, execmod.String(v[0]))
	if res == nil && err == nil {
		return nil, nil
	}
	return res, err
}

func fileChattr(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	get := func(k string) any {
		x, _ := kwargs.Get(k)
		return x
	}
	op := get("operator")
	if op != "add" && op != "remove" {
		return nil, invocationf("Need an operator: 'add' or 'remove' to modify attributes.")
	}
	attrs := get("attributes")
	if attrs == nil {
		return nil, invocationf("Need attributes: [aAcCdDeijPsStTu]")
	}
	sign := "+"
	if op == "remove" {
		sign = "-"
	}
	cmd := value.NewList("chattr", sign+value.Str(attrs))
	if f := get("flags"); f != nil {
		cmd.Append("-" + value.Str(f))
	}
	if ver := get("version"); ver != nil {
		cmd.Append("-v", value.Str(ver))
	}
	cmd.Items = append(cmd.Items, args...)
	out, err := ctx.Call("cmd.run", []any{cmd}, value.MapOf("python_shell", false))
	if err != nil {
		return nil, err
	}
	return !value.Truthy(out), nil
}

// cmpAttrs is file._cmp_attrs: the letters to add and to remove.
func cmpAttrs(ctx *execmod.Context, path, attrs string) (string, string, error) {
	cur, err := lsattrOf(ctx, path)
	if err != nil || cur == nil {
		return "", "", err
	}
	old := map[string]bool{}
	if l, ok := cur.Get(path); ok {
		for _, it := range l.(*value.List).Items {
			old[value.Str(it)] = true
		}
	}
	want := map[string]bool{}
	for _, r := range attrs {
		want[string(r)] = true
	}
	if old["e"] {
		want["e"] = true
	}
	var add, rm strings.Builder
	for _, r := range attrs + "e" {
		if s := string(r); want[s] && !old[s] && !strings.Contains(add.String(), s) {
			add.WriteString(s)
		}
	}
	for _, r := range "aAcCdDeijPsStTu" {
		if s := string(r); old[s] && !want[s] {
			rm.WriteString(s)
		}
	}
	return add.String(), rm.String(), nil
}

func attrString(ctx *execmod.Context, path string) string {
	cur, _ := lsattrOf(ctx, path)
	if cur == nil {
		return ""
	}
	var b strings.Builder
	if l, ok := cur.Get(path); ok {
		for _, it := range l.(*value.List).Items {
			b.WriteString(value.Str(it))
		}
	}
	return b.String()
}

func fileCheckPerms(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	p, v, err := bindPath("check_perms", args, kwargs, execmod.Req("name"), execmod.Req("ret"), execmod.Req("user"),
		execmod.Req("group"), execmod.Req("mode"), execmod.Opt("attrs", nil), execmod.Opt("follow_symlinks", false),
		execmod.Opt("seuser", nil), execmod.Opt("serole", nil), execmod.Opt("setype", nil), execmod.Opt("serange", nil))
	if err != nil {
		return nil, err
	}
	if !lexistsPath(p) {
		return nil, execmod.Errorf("Path not found: %s", p)
	}
	ret, _ := v[1].(*value.Map)
	if ret == nil || ret.Len() == 0 {
		ret = value.MapOf("name", p, "changes", value.NewMap(0), "comment", "", "result", true)
	}
	test := testMode(ctx)
	follow := value.Truthy(v[6])
	perms := fileops.CheckPerms(p, ret, v[2], v[3], v[4], follow, test)
	var extra []string
	if attrs := v[5]; attrs != nil && !isDirPath(p) && !(isLinkPath(p) && !follow) {
		want := value.Str(attrs)
		add, rm, err := cmpAttrs(ctx, p, want)
		if err != nil {
			return nil, err
		}
		if add != "" || rm != "" {
			ch := value.MapOf("old", attrString(ctx, p), "new", nil)
			if test {
				ch.Set("new", want)
			} else {
				if add != "" {
					if _, err := fileChattr(ctx, []any{p}, value.MapOf("operator", "add", "attributes", add)); err != nil {
						return nil, err
					}
				}
				if rm != "" {
					if _, err := fileChattr(ctx, []any{p}, value.MapOf("operator", "remove", "attributes", rm)); err != nil {
						return nil, err
					}
				}
				if a2, r2, _ := cmpAttrs(ctx, p, want); a2 != "" || r2 != "" {
					ret.Set("result", false)
					extra = append(extra, fmt.Sprintf("Failed to change attributes to %s", want))
					ch.Set("new", attrString(ctx, p))
				} else {
					ch.Set("new", want)
				}
			}
			if o, _ := ch.Get("old"); !value.Equal(o, mapValue(ch, "new", nil)) {
				mapValue(ret, "changes", value.NewMap(0)).(*value.Map).Set("attrs", ch)
			}
		}
	}
	if value.Truthy(v[7]) || value.Truthy(v[8]) || value.Truthy(v[9]) || value.Truthy(v[10]) {
		// Without SELinux, stat -c %C prints "?" and Salt cannot split it.
		if _, err := os.Stat("/sys/fs/selinux/enforce"); err != nil {
			ret.Set("result", false)
			extra = append(extra, "Failed to get selinux attributes")
		} else {
			return nil, execmod.Errorf("SELinux contexts are not supported by brine's file.check_perms")
		}
	}
	if len(extra) > 0 {
		c := value.Str(mapValue(ret, "comment", ""))
		if c != "" {
			extra = append([]string{c}, extra...)
		}
		ret.Set("comment", strings.Join(extra, "; "))
	}
	if test {
		if ch, _ := mapValue(ret, "changes", nil).(*value.Map); ch != nil && ch.Len() > 0 {
			ret.Set("result", nil)
		}
	}
	return value.Tuple{ret, perms.Map()}, nil
}
