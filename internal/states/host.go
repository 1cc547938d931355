package states

// host.go is salt/states/host.py (host.present, host.absent, host.only)
// with the hosts file handling of salt/modules/hosts.py. The file is the
// hosts.file option (/etc/hosts by default), as in Salt.

import (
	"net"
	"os"
	"strings"

	"brine/internal/statemod"
	"brine/internal/system/atomicfile"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "host.present",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("ip"), statemod.Opt("comment", ""), statemod.Opt("clean", false)},
		Doc:    "Ensure that the named host is present for the given IP addresses.",
		Run:    hostPresent})
	statemod.Register(&statemod.Function{Name: "host.absent",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("ip")},
		Doc:    "Ensure that the named host is absent for the given IP addresses.",
		Run:    hostAbsent})
	statemod.Register(&statemod.Function{Name: "host.only",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("hostnames")},
		Doc:    "Ensure that only the given hostnames are associated with the IP address name.",
		Run:    hostOnly})
}

// hostsEntry is one line group of the hosts file: an address with its
// aliases and comment, or a comment line (ip == "").
type hostsEntry struct {
	ip         string
	aliases    []string
	comment    string
	hasComment bool
	raw        string // a comment line
}

type hostsFile struct {
	path    string
	entries []*hostsEntry
}

func hostsPath(c *statemod.Call) string {
	if v := c.Opt("hosts.file"); v != nil {
		return value.Str(v)
	}
	if v, ok := c.Pillar().Get("hosts.file"); ok && v != nil {
		return value.Str(v)
	}
	return "/etc/hosts"
}

// readHosts is hosts._list_hosts.
func readHosts(path string) (*hostsFile, error) {
	h := &hostsFile{path: path}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return h, nil
	}
	if err != nil {
		return nil, err
	}
	byIP := map[string]*hostsEntry{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			h.entries = append(h.entries, &hostsEntry{raw: line})
			continue
		}
		comment, hasComment := "", false
		if i := strings.IndexByte(line, '#'); i >= 0 {
			comment = strings.TrimLeft(line[i+1:], " \t")
			hasComment = comment != ""
			line = strings.TrimSpace(line[:i])
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		e, ok := byIP[f[0]]
		if !ok {
			e = &hostsEntry{ip: f[0], aliases: []string{}}
			byIP[f[0]] = e
			h.entries = append(h.entries, e)
		}
		e.aliases = append(e.aliases, f[1:]...)
		if hasComment {
			e.comment, e.hasComment = comment, true
		}
	}
	return h, nil
}

func (h *hostsFile) get(ip string) *hostsEntry {
	for _, e := range h.entries {
		if e.ip == ip && e.ip != "" {
			return e
		}
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// write is hosts._write_hosts.
func (h *hostsFile) write() error {
	var b strings.Builder
	for _, e := range h.entries {
		var line string
		switch {
		case e.ip == "":
			line = e.raw
		case e.hasComment:
			line = e.ip + "\t\t" + strings.Join(e.aliases, " ") + "\t\t# " + e.comment
		default:
			line = e.ip + "\t\t" + strings.Join(e.aliases, " ")
		}
		if strings.TrimSpace(line) != "" {
			b.WriteString(strings.TrimSpace(line) + "\n")
		}
	}
	return atomicfile.Write(h.path, []byte(b.String()))
}

// writeFileAtomic replaces path with data, keeping an existing file's
// mode (atomicfile.Write).
func writeFileAtomic(path string, data []byte) error { return atomicfile.Write(path, data) }

// rmHostLine is hosts.rm_host: unlike adding, it edits the file in place.
// Each line of ip loses alias and is rewritten as "ip\t\t" followed by
// every remaining alias and a space (Salt keeps that trailing space), then
// "# comment" when the line had one; a line left with no alias is dropped.
// Other lines are kept byte for byte.
func rmHostLine(path, ip, alias string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		info, comment, hasComment := strings.Cut(t, "#")
		comment = strings.TrimLeft(comment, " \t\r\n\v\f")
		comps := strings.Fields(info)
		if len(comps) == 0 || comps[0] != ip {
			continue
		}
		nl := ip + "\t\t"
		for _, a := range comps[1:] {
			if a != alias {
				nl += a + " "
			}
		}
		switch {
		case strings.TrimSpace(nl) == ip:
			lines[i] = ""
		case hasComment && comment != "":
			lines[i] = nl + "# " + comment + "\n"
		default:
			lines[i] = nl + "\n"
		}
	}
	return atomicfile.Write(path, []byte(strings.Join(lines, "")))
}

func ipList(v any) []string {
	if l, ok := v.(*value.List); ok {
		out := make([]string, 0, l.Len())
		for _, it := range l.Items {
			out = append(out, value.Str(it))
		}
		return out
	}
	return []string{value.Str(v)}
}

func changesSub(ret *value.Map, key, addr, item string) {
	ch := getv(ret, "changes").(*value.Map)
	sub, _ := getv(ch, key).(*value.Map)
	if sub == nil {
		sub = value.NewMap(0)
		ch.Set(key, sub)
	}
	l, _ := getv(sub, addr).(*value.List)
	if l == nil {
		l = value.NewList()
		sub.Set(addr, l)
	}
	l.Append(item)
}

func hostPresent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), true, "")
	ips := ipList(c.Get("ip"))
	comment := c.Str("comment")
	h, err := readHosts(hostsPath(c))
	if err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	}
	var comments []string
	type pair struct{ addr, v string }
	var toAdd, toRemove, updComment []pair
	addPair := func(l *[]pair, p pair) {
		for _, x := range *l {
			if x == p {
				return
			}
		}
		*l = append(*l, p)
	}
	for _, ip := range ips {
		if h.get(ip) == nil {
			addPair(&toAdd, pair{ip, name})
			if comment != "" {
				addPair(&updComment, pair{ip, comment})
			}
		}
	}
	for _, e := range h.entries {
		if e.ip == "" {
			continue
		}
		if !contains(ips, e.ip) {
			if contains(e.aliases, name) {
				if c.Bool("clean") {
					addPair(&toRemove, pair{e.ip, name})
				} else {
					w, _ := getv(ret, "warnings").(*value.List)
					if w == nil {
						w = value.NewList()
						ret.Set("warnings", w)
					}
					w.Append("Host " + name + " present for IP address " + e.ip + ". To get rid of this warning, either run this state with 'clean' set to True to remove " + name + " from " + e.ip + ", or add " + e.ip + " to the 'ip' argument.")
				}
			}
			continue
		}
		if contains(e.aliases, name) {
			switch {
			case comment != "" && e.hasComment && e.comment != comment:
				addPair(&updComment, pair{e.ip, comment})
			case comment != "" && !e.hasComment:
				addPair(&updComment, pair{e.ip, comment})
			default:
				comments = append(comments, "Host "+name+" ("+e.ip+") already present")
			}
		} else if net.ParseIP(e.ip) != nil {
			addPair(&toAdd, pair{e.ip, name})
			if comment != "" {
				addPair(&updComment, pair{e.ip, comment})
			}
		} else {
			ret.Set("result", false)
			comments = append(comments, "Invalid IP Address for "+name+" ("+e.ip+")")
		}
	}
	changed := false
	for _, p := range toAdd {
		if c.Test {
			ret.Set("result", nil)
			comments = append(comments, "Host "+p.v+" ("+p.addr+") would be added")
		} else {
			e := h.get(p.addr)
			if e == nil {
				e = &hostsEntry{ip: p.addr}
				h.entries = append(h.entries, e)
			}
			e.aliases = append(e.aliases, p.v)
			changed = true
			comments = append(comments, "Added host "+p.v+" ("+p.addr+")")
		}
		changesSub(ret, "added", p.addr, p.v)
	}
	for _, p := range updComment {
		if c.Test {
			comments = append(comments, "Comment for "+p.addr+" ("+p.v+") would be added")
		} else {
			if e := h.get(p.addr); e != nil {
				e.comment, e.hasComment = p.v, true
				changed = true
			}
			comments = append(comments, "Set comment for host "+p.addr+" ("+p.v+")")
		}
		changesSub(ret, "comment_added", p.addr, p.v)
	}
	if changed {
		if err := h.write(); err != nil {
			return statemod.Ret(c.Get("name"), false, "Failed to write "+h.path+": "+err.Error()), nil
		}
	}
	for _, p := range toRemove {
		if c.Test {
			ret.Set("result", nil)
			comments = append(comments, "Host "+p.v+" ("+p.addr+") would be removed")
		} else if err := rmHostLine(h.path, p.addr, p.v); err != nil {
			ret.Set("result", false)
			comments = append(comments, "Failed to remove host "+p.v+" ("+p.addr+")")
			continue
		} else {
			comments = append(comments, "Removed host "+p.v+" ("+p.addr+")")
		}
		changesSub(ret, "removed", p.addr, p.v)
	}
	ret.Set("comment", strings.Join(comments, "\n"))
	return ret, nil
}

func hostAbsent(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), nil, "")
	h, err := readHosts(hostsPath(c))
	if err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	}
	var comments []string
	for _, ip := range ipList(c.Get("ip")) {
		e := h.get(ip)
		if e == nil || !contains(e.aliases, name) {
			ret.Set("result", true)
			comments = append(comments, "Host "+name+" ("+ip+") already absent")
			continue
		}
		if c.Test {
			comments = append(comments, "Host "+name+" ("+ip+") needs to be removed")
			continue
		}
		if err := rmHostLine(h.path, ip, name); err != nil {
			ret.Set("result", false)
			comments = append(comments, "Failed to remove host")
			continue
		}
		ret.Set("changes", value.MapOf("host", name))
		ret.Set("result", true)
		comments = append(comments, "Removed host "+name+" ("+ip+")")
	}
	ret.Set("comment", strings.Join(comments, "\n"))
	return ret, nil
}

func hostOnly(c *statemod.Call) (*value.Map, error) {
	name := c.Name()
	ret := statemod.Ret(c.Get("name"), nil, "")
	h, err := readHosts(hostsPath(c))
	if err != nil {
		return statemod.Ret(c.Get("name"), false, err.Error()), nil
	}
	var oldAliases []string
	if e := h.get(name); e != nil {
		oldAliases = e.aliases
	}
	old := strings.Join(oldAliases, " ")
	var want []string
	for _, x := range ipList(c.Get("hostnames")) {
		want = append(want, strings.TrimSpace(x))
	}
	nw := strings.Join(want, " ")
	if old == nw {
		ret.Set("comment", "IP address "+name+" already set to \""+nw+"\"")
		ret.Set("result", true)
		return ret, nil
	}
	if c.Test {
		ret.Set("comment", "Would change "+name+" from \""+old+"\" to \""+nw+"\"")
		return ret, nil
	}
	if err := setHostLine(h.path, name, nw); err != nil {
		ret.Set("result", false)
		ret.Set("comment", "hosts.set_host failed to change "+name+" from \""+old+"\" to \""+nw+"\"")
		return ret, nil
	}
	ret.Set("result", true)
	ret.Set("comment", "successfully changed "+name+" from \""+old+"\" to \""+nw+"\"")
	ret.Set("changes", value.MapOf(name, value.MapOf("old", old, "new", nw)))
	return ret, nil
}

// setHostLine is hosts.set_host: the first line of ip is replaced by
// "ip\t\taliases", its other lines dropped; the line is appended when ip
// has none.
func setHostLine(path, ip, aliases string) error {
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	newLine := ip + "\t\t" + aliases + "\n"
	if strings.TrimSpace(aliases) == "" {
		newLine = ""
	}
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	done := false
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if strings.Fields(t)[0] == ip {
			if !done {
				lines[i], done = newLine, true
			} else {
				lines[i] = ""
			}
		}
	}
	if !done {
		if n := len(lines); n > 0 && !strings.HasSuffix(lines[n-1], "\n") {
			lines[n-1] += "\n"
		}
		lines = append(lines, newLine)
	}
	return atomicfile.Write(path, []byte(strings.Join(lines, "")))
}
