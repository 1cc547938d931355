package modules

// hosts.go is salt/modules/hosts.py: reading and editing the hosts file
// (the hosts.file option, /etc/hosts by default), written the way Salt
// writes it: whole-file rewrites in place, tab-separated.

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"

	"brine/internal/execmod"
	"brine/internal/value"
)

func init() {
	execmod.Register("hosts.list_hosts", hostsListHosts, "Return the hosts file as {ip: {'aliases': [...], 'comment': ...}}, comment lines as 'comment-N'.")
	execmod.Register("hosts.get_ip", hostsGetIP, "Return the first address that has alias host in the hosts file, else ''.")
	execmod.Register("hosts.get_alias", hostsGetAlias, "Return the aliases of ip in the hosts file ([] when none).")
	execmod.Register("hosts.has_pair", hostsHasPair, "True when ip has alias (or every alias of a list) in the hosts file.")
	execmod.Register("hosts.set_host", hostsSetHost, "Make alias (space-separated names; '' removes) the only line of ip, with an optional comment.")
	execmod.Register("hosts.rm_host", hostsRmHost, "Remove alias from the lines of ip (the line goes when no alias is left).")
	execmod.Register("hosts.add_host", hostsAddHost, "Add alias to ip in the hosts file (the file is rewritten).")
	execmod.Register("hosts.set_comment", hostsSetComment, "Set the comment of the line of ip; False when ip is not in the file.")
}

// hostsFilename is the hosts.file option (config.option).
func hostsFilename(ctx *execmod.Context) (string, error) {
	v, err := ctx.Call("config.option", []any{"hosts.file"}, nil)
	if err != nil {
		return "", err
	}
	return execmod.String(v), nil
}

// hostsCreate is _get_or_create_hostfile: the hosts file name, created
// empty when missing.
func hostsCreate(ctx *execmod.Context) (string, error) {
	hfn, err := hostsFilename(ctx)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(hfn); errors.Is(err, fs.ErrNotExist) {
		f, err := os.OpenFile(hfn, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return "", execmod.Errorf("%s", err)
		}
		f.Close()
	}
	return hfn, nil
}

// hostsParse is _list_hosts: comment lines under "comment-N" (a list of
// the line), each address once with its aliases (lines of one address
// merged) and the last comment given.
func hostsParse(data string) *value.Map {
	ret := value.NewMap(0)
	count := 0
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			ret.Set("comment-"+value.Str(int64(count)), value.NewList(line))
			count++
			continue
		}
		comment := ""
		if i := strings.IndexByte(line, '#'); i >= 0 {
			comment = strings.TrimLeft(line[i+1:], " \t\r\n\v\f")
			line = strings.TrimSpace(line[:i])
		}
		comps := strings.Fields(line)
		ip := comps[0]
		e, ok := ret.Get(ip)
		if !ok {
			e = value.MapOf("aliases", value.NewList())
			ret.Set(ip, e)
		}
		em := e.(*value.Map)
		al, _ := em.Get("aliases")
		for _, a := range comps[1:] {
			al.(*value.List).Append(a)
		}
		if comment != "" {
			em.Set("comment", comment)
		}
	}
	return ret
}

func hostsList(ctx *execmod.Context) (*value.Map, error) {
	hfn, err := hostsFilename(ctx)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(hfn)
	if errors.Is(err, fs.ErrNotExist) {
		return value.NewMap(0), nil
	}
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return hostsParse(string(data)), nil
}

// hostsAliases returns the aliases of ip, ok false when ip has no entry.
func hostsAliases(h *value.Map, ip string) (*value.List, bool) {
	e, ok := h.Get(ip)
	if !ok {
		return nil, false
	}
	m, ok := e.(*value.Map)
	if !ok {
		return nil, false
	}
	al, _ := m.Get("aliases")
	l, ok := al.(*value.List)
	return l, ok
}

func hostsListHosts(ctx *execmod.Context, _ []any, _ *value.Map) (any, error) {
	return hostsList(ctx)
}

func hostsGetIP(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_ip", args, kwargs, execmod.Req("host"))
	if err != nil {
		return nil, err
	}
	h, err := hostsList(ctx)
	if err != nil {
		return nil, err
	}
	found := ""
	h.Range(func(k, _ any) bool {
		if l, ok := hostsAliases(h, k.(string)); ok && hostsContains(l, v[0]) {
			found = k.(string)
			return false
		}
		return true
	})
	return found, nil
}

func hostsContains(l *value.List, x any) bool {
	for _, it := range l.Items {
		if value.Equal(it, x) {
			return true
		}
	}
	return false
}

func hostsGetAlias(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_alias", args, kwargs, execmod.Req("ip"))
	if err != nil {
		return nil, err
	}
	h, err := hostsList(ctx)
	if err != nil {
		return nil, err
	}
	if l, ok := hostsAliases(h, execmod.String(v[0])); ok {
		return l, nil
	}
	return value.NewList(), nil
}

func hostsPair(ctx *execmod.Context, ip, alias any) (bool, error) {
	h, err := hostsList(ctx)
	if err != nil {
		return false, err
	}
	l, ok := hostsAliases(h, execmod.String(ip))
	if !ok {
		return false, nil
	}
	if al, isList := alias.(*value.List); isList {
		for _, a := range al.Items {
			if !hostsContains(l, a) {
				return false, nil
			}
		}
		return true, nil
	}
	return hostsContains(l, alias), nil
}

func hostsHasPair(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("has_pair", args, kwargs, execmod.Req("ip"), execmod.Req("alias"))
	if err != nil {
		return nil, err
	}
	return hostsPair(ctx, v[0], v[1])
}

// hostsLines splits data into lines that keep their "\n".
func hostsLines(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			out = append(out, data)
			break
		}
		out = append(out, data[:i+1])
		data = data[i+1:]
	}
	return out
}

func hostsWriteLines(hfn string, lines [][]byte) error {
	if err := os.WriteFile(hfn, bytes.Join(lines, nil), 0o644); err != nil {
		return execmod.Errorf("%s", err)
	}
	return nil
}

func hostsSetHost(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_host", args, kwargs, execmod.Req("ip"), execmod.Req("alias"), execmod.Opt("comment", nil))
	if err != nil {
		return nil, err
	}
	hfn, err := hostsCreate(ctx)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(hfn); err != nil || !st.Mode().IsRegular() {
		return false, nil
	}
	ip, alias := value.Str(v[0]), value.Str(v[1])
	add := ip + "\t\t" + alias + "\n"
	if value.Truthy(v[2]) {
		add = ip + "\t\t" + alias + "\t\t# " + value.Str(v[2]) + "\n"
	}
	if strings.TrimSpace(alias) == "" {
		add = ""
	}
	data, err := os.ReadFile(hfn)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	lines := hostsLines(data)
	ovr := false
	for i, l := range lines {
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		if string(bytes.Fields(t)[0]) == ip {
			if !ovr {
				lines[i] = []byte(add)
				ovr = true
			} else {
				lines[i] = nil
			}
		}
	}
	if !ovr {
		if n := len(lines); n > 0 && !bytes.HasSuffix(lines[n-1], []byte("\n")) {
			lines[n-1] = append(lines[n-1], '\n')
		}
		lines = append(lines, []byte(add))
	}
	return true, hostsWriteLines(hfn, lines)
}

func hostsRmHost(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("rm_host", args, kwargs, execmod.Req("ip"), execmod.Req("alias"))
	if err != nil {
		return nil, err
	}
	if ok, err := hostsPair(ctx, v[0], v[1]); err != nil || !ok {
		return true, err
	}
	hfn, err := hostsCreate(ctx)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(hfn)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	ip, alias := value.Str(v[0]), value.Str(v[1])
	lines := hostsLines(data)
	for i, l := range lines {
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		info, comment, hasComment := bytes.Cut(t, []byte("#"))
		comment = bytes.TrimLeft(comment, " \t\r\n\v\f")
		comps := bytes.Fields(info)
		if string(comps[0]) != ip {
			continue
		}
		nl := ip + "\t\t"
		for _, a := range comps[1:] {
			if string(a) != alias {
				nl += string(a) + " "
			}
		}
		switch {
		case strings.TrimSpace(nl) == ip:
			lines[i] = nil
		case hasComment && len(comment) > 0:
			lines[i] = []byte(nl + "# " + string(comment) + "\n")
		default:
			lines[i] = []byte(nl + "\n")
		}
	}
	return true, hostsWriteLines(hfn, lines)
}

// hostsWrite is _write_hosts: the parsed file written back, one line per
// entry.
func hostsWrite(hfn string, h *value.Map) error {
	var sb strings.Builder
	h.Range(func(k, e any) bool {
		ip := k.(string)
		line := ""
		switch x := e.(type) {
		case *value.List:
			for _, it := range x.Items {
				line += value.Str(it)
			}
		case *value.Map:
			al, _ := x.Get("aliases")
			var names []string
			for _, a := range al.(*value.List).Items {
				names = append(names, value.Str(a))
			}
			line = ip + "\t\t" + strings.Join(names, " ")
			if c, ok := x.Get("comment"); ok {
				line += "\t\t# " + value.Str(c)
			}
		}
		if strings.TrimSpace(line) != "" {
			sb.WriteString(strings.TrimSpace(line) + "\n")
		}
		return true
	})
	if err := os.WriteFile(hfn, []byte(sb.String()), 0o644); err != nil {
		return execmod.Errorf("%s", err)
	}
	return nil
}

func hostsAddHost(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("add_host", args, kwargs, execmod.Req("ip"), execmod.Req("alias"))
	if err != nil {
		return nil, err
	}
	hfn, err := hostsCreate(ctx)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(hfn); err != nil || !st.Mode().IsRegular() {
		return false, nil
	}
	if ok, err := hostsPair(ctx, v[0], v[1]); err != nil || ok {
		return true, err
	}
	h, err := hostsList(ctx)
	if err != nil {
		return nil, err
	}
	ip := execmod.String(v[0])
	l, ok := hostsAliases(h, ip)
	if !ok {
		l = value.NewList()
		h.Set(ip, value.MapOf("aliases", l))
	}
	l.Append(v[1])
	return true, hostsWrite(hfn, h)
}

func hostsSetComment(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_comment", args, kwargs, execmod.Req("ip"), execmod.Req("comment"))
	if err != nil {
		return nil, err
	}
	hfn, err := hostsCreate(ctx)
	if err != nil {
		return nil, err
	}
	if st, err := os.Stat(hfn); err != nil || !st.Mode().IsRegular() {
		return false, nil
	}
	h, err := hostsList(ctx)
	if err != nil {
		return nil, err
	}
	e, ok := h.Get(execmod.String(v[0]))
	m, isMap := e.(*value.Map)
	if !ok || !isMap {
		return false, nil
	}
	if c, has := m.Get("comment"); has && value.Equal(c, v[1]) {
		return true, nil
	}
	m.Set("comment", v[1])
	return true, hostsWrite(hfn, h)
}
