package beacons

// inotify.go is salt/beacons/inotify.py: an event for each inotify
// event on the configured files and directories. Salt reads inotify
// through pyinotify; this beacon reads the kernel's inotify directly and
// reports as pyinotify does (the watch's path as the tag, the event's
// full path, the mask name such as IN_CREATE or IN_CREATE|IN_ISDIR).
// As in Salt, the first run sets the watches up: events start with the
// second.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"brine/internal/match"
	"brine/internal/value"
)

func init() { Register("inotify", func() Module { return &inotify{fd: -1} }) }

// inotifyMasks are pyinotify's IN_* flags by their lower-case names.
var inotifyMasks = map[string]uint32{
	"access": unix.IN_ACCESS, "modify": unix.IN_MODIFY, "attrib": unix.IN_ATTRIB,
	"close_write": unix.IN_CLOSE_WRITE, "close_nowrite": unix.IN_CLOSE_NOWRITE, "open": unix.IN_OPEN,
	"moved_from": unix.IN_MOVED_FROM, "moved_to": unix.IN_MOVED_TO, "create": unix.IN_CREATE,
	"delete": unix.IN_DELETE, "delete_self": unix.IN_DELETE_SELF, "move_self": unix.IN_MOVE_SELF,
	"unmount": unix.IN_UNMOUNT, "q_overflow": unix.IN_Q_OVERFLOW, "ignored": unix.IN_IGNORED,
	"onlydir": unix.IN_ONLYDIR, "dont_follow": unix.IN_DONT_FOLLOW, "excl_unlink": unix.IN_EXCL_UNLINK,
	"mask_add": unix.IN_MASK_ADD, "isdir": unix.IN_ISDIR, "oneshot": unix.IN_ONESHOT,
}

// inotifyValid are the mask names the beacon's configuration may use.
var inotifyValid = []string{
	"access", "attrib", "close_nowrite", "close_write", "create", "delete", "delete_self",
	"excl_unlink", "ignored", "modify", "moved_from", "moved_to", "move_self", "oneshot",
	"onlydir", "open", "unmount",
}

const inotifyDefaultMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY

type inotify struct {
	fd       int
	coalesce bool
	watches  map[int]*inWatch
}

type inWatch struct {
	path    string
	mask    uint32
	autoAdd bool
	exclude []*regexp.Regexp
}

type rawEvent struct {
	wd           int
	mask, cookie uint32
	name         string
}

func (*inotify) Validate(config any) (bool, string) {
	if !isList(config) {
		return false, "Configuration for inotify beacon must be a list."
	}
	c := ListToDict(config)
	f, ok := c.Get("files")
	if !ok {
		return false, "Configuration for inotify beacon must include files."
	}
	files, ok := f.(*value.Map)
	if !ok {
		return false, "Configuration for inotify beacon invalid, files must be a dict."
	}
	for _, v := range files.Values() {
		pc, ok := v.(*value.Map)
		if !ok {
			return false, "Configuration for inotify beacon must be a list of dictionaries."
		}
		if !hasAny(pc, "mask", "recurse", "auto_add") {
			return false, "Configuration for inotify beacon must contain mask, recurse or auto_add items."
		}
		if v, ok := pc.Get("auto_add"); ok && !pyBool(v) {
			return false, "Configuration for inotify beacon auto_add must be boolean."
		}
		if v, ok := pc.Get("recurse"); ok && !pyBool(v) {
			return false, "Configuration for inotify beacon recurse must be boolean."
		}
		if v, ok := pc.Get("mask"); ok {
			l, ok := v.(*value.List)
			if !ok {
				return false, "Configuration for inotify beacon mask must be list."
			}
			for _, m := range l.Items {
				s, isStr := m.(string)
				if !isStr || !contains(inotifyValid, s) {
					return false, fmt.Sprintf("Configuration for inotify beacon invalid mask option %s.", value.Str(m))
				}
			}
		}
	}
	return true, "Valid beacon configuration"
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// Close stops watching (Salt's close: the next run starts afresh).
func (n *inotify) Close(any) {
	if n.fd >= 0 {
		unix.Close(n.fd)
	}
	n.fd, n.watches = -1, nil
}

func (n *inotify) Beacon(ctx *Context, config any) ([]*value.Map, error) {
	c := ListToDict(config)
	files, _ := mustGet(c, "files").(*value.Map)
	if files == nil {
		files = value.NewMap(0)
	}
	if n.fd < 0 {
		fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
		if err != nil {
			return nil, fmt.Errorf("inotify: %w", err)
		}
		n.fd, n.watches = fd, map[int]*inWatch{}
		n.coalesce = mustGet(c, "coalesce") == true
	}
	var ret []*value.Map
	queue, err := n.read()
	if err != nil {
		return nil, err
	}
	for i := 0; i < len(queue); i++ {
		ev := queue[i]
		w := n.watches[ev.wd]
		if w == nil {
			continue
		}
		pathname := w.path
		if ev.name != "" {
			pathname = filepath.Join(w.path, ev.name)
		}
		queue = append(queue, n.system(w, ev, pathname)...)
		path := w.path
		for path != "/" && !files.Has(path) {
			path = filepath.Dir(path)
		}
		pc, ok := mustGet(files, path).(*value.Map)
		if !ok {
			return nil, fmt.Errorf("'%s'", path)
		}
		if !excluded(mustGet(pc, "exclude"), pathname, ctx) {
			ret = append(ret, value.MapOf("tag", w.path, "path", pathname, "change", maskName(ev.mask)))
		}
	}
	n.update(files)
	return ret, nil
}

// read returns the events waiting (pyinotify's check_events(1),
// read_events), without duplicates when coalescing.
func (n *inotify) read() ([]rawEvent, error) {
	var out []rawEvent
	seen := map[rawEvent]bool{}
	buf := make([]byte, 64*1024)
	pfd := []unix.PollFd{{Fd: int32(n.fd), Events: unix.POLLIN}}
	if k, err := unix.Poll(pfd, 1); err != nil && !errors.Is(err, unix.EINTR) {
		return nil, fmt.Errorf("inotify: %w", err)
	} else if k <= 0 {
		return nil, nil
	}
	for {
		k, err := unix.Read(n.fd, buf)
		if errors.Is(err, unix.EAGAIN) || k <= 0 {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("inotify: %w", err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= k; {
			hdr := buf[off : off+unix.SizeofInotifyEvent]
			raw := unix.InotifyEvent{
				Wd: int32(binary.NativeEndian.Uint32(hdr[0:])), Mask: binary.NativeEndian.Uint32(hdr[4:]),
				Cookie: binary.NativeEndian.Uint32(hdr[8:]), Len: binary.NativeEndian.Uint32(hdr[12:]),
			}
			nameLen := int(raw.Len)
			name := ""
			if nameLen > 0 {
				b := buf[off+unix.SizeofInotifyEvent : off+unix.SizeofInotifyEvent+nameLen]
				name = string(bytes.TrimRight(b, "\x00"))
			}
			ev := rawEvent{wd: int(raw.Wd), mask: raw.Mask, cookie: raw.Cookie, name: name}
			off += unix.SizeofInotifyEvent + nameLen
			if n.coalesce {
				if seen[ev] {
					continue
				}
				seen[ev] = true
			}
			out = append(out, ev)
		}
	}
}

// system is pyinotify's own handling of an event: a directory created
// under an auto_add watch is watched too (and what was created in it
// before is reported as created); an ignored watch is forgotten.
func (n *inotify) system(w *inWatch, ev rawEvent, pathname string) []rawEvent {
	if ev.mask&unix.IN_IGNORED != 0 {
		delete(n.watches, ev.wd)
		return nil
	}
	if ev.mask&unix.IN_CREATE == 0 || ev.mask&unix.IN_ISDIR == 0 || !w.autoAdd || matchAny(w.exclude, pathname) {
		return nil
	}
	wd, err := n.addWatch(pathname, w.mask, w.autoAdd, w.exclude)
	if err != nil {
		return nil
	}
	ents, err := os.ReadDir(pathname)
	if err != nil {
		return nil
	}
	var out []rawEvent
	for _, e := range ents {
		inner := filepath.Join(pathname, e.Name())
		if n.wdOf(inner) >= 0 {
			continue
		}
		st, err := os.Stat(inner)
		switch {
		case err != nil:
			continue
		case st.Mode().IsRegular():
			out = append(out, rawEvent{wd: wd, mask: unix.IN_CREATE, name: e.Name()})
		case st.IsDir():
			out = append(out, rawEvent{wd: wd, mask: unix.IN_CREATE | unix.IN_ISDIR, name: e.Name()})
		}
	}
	return out
}

func (n *inotify) wdOf(path string) int {
	for wd, w := range n.watches {
		if w.path == path {
			return wd
		}
	}
	return -1
}

func (n *inotify) addWatch(path string, mask uint32, autoAdd bool, exclude []*regexp.Regexp) (int, error) {
	wd, err := unix.InotifyAddWatch(n.fd, path, mask)
	if err != nil {
		return -1, err
	}
	n.watches[wd] = &inWatch{path: path, mask: mask, autoAdd: autoAdd, exclude: exclude}
	return wd, nil
}

// update adds the watches of the configured paths that exist and are not
// watched yet, and changes those whose mask or auto_add changed.
func (n *inotify) update(files *value.Map) {
	for _, k := range files.Keys() {
		path := value.Str(k)
		mask, rec, autoAdd := uint32(inotifyDefaultMask), false, false
		pc, isMap := mustGet(files, path).(*value.Map)
		if isMap {
			switch m := mustGet(pc, "mask").(type) {
			case *value.List:
				mask = 0
				for _, s := range m.Items {
					mask |= inotifyMasks[value.Str(s)]
				}
			case int64:
				mask = uint32(m)
			}
			rec = mustGet(pc, "recurse") == true
			autoAdd = mustGet(pc, "auto_add") == true
		}
		clean := filepath.Clean(path)
		if wd := n.wdOf(clean); wd >= 0 {
			if w := n.watches[wd]; w.mask != mask || w.autoAdd != autoAdd {
				for _, sub := range n.sorted() {
					sw := n.watches[sub]
					if sub == wd || (rec && strings.HasPrefix(sw.path, clean+"/")) {
						_, _ = n.addWatch(sw.path, mask, autoAdd, sw.exclude)
					}
				}
			}
			continue
		}
		if _, err := os.Stat(clean); err != nil {
			continue
		}
		var excl []*regexp.Regexp
		if isMap {
			if l, ok := mustGet(pc, "exclude").(*value.List); ok {
				for _, e := range l.Items {
					pat := value.Str(e)
					if m, ok := e.(*value.Map); ok && m.Len() > 0 {
						k0, _ := m.At(0)
						pat = value.Str(k0)
					}
					if re, err := regexp.Compile("^(?:" + pat + ")"); err == nil {
						excl = append(excl, re)
					}
				}
			}
		}
		for _, p := range walkDirs(clean, rec) {
			if !matchAny(excl, p) {
				_, _ = n.addWatch(p, mask, autoAdd, excl)
			}
		}
	}
}

func (n *inotify) sorted() []int {
	wds := make([]int, 0, len(n.watches))
	for wd := range n.watches {
		wds = append(wds, wd)
	}
	sort.Ints(wds)
	return wds
}

// walkDirs is the path, and with rec the directories under it (not
// following links).
func walkDirs(top string, rec bool) []string {
	st, err := os.Lstat(top)
	if !rec || err != nil || !st.IsDir() {
		return []string{top}
	}
	var out []string
	_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

func matchAny(res []*regexp.Regexp, p string) bool {
	for _, re := range res {
		if re.MatchString(p) {
			return true
		}
	}
	return false
}

// excluded applies a path's exclude list to an event's full path: a
// {pattern: {regex: True}} item is a regular expression searched for, a
// string with '*' a glob, any other string a prefix.
func excluded(ex any, pathname string, ctx *Context) bool {
	l, ok := ex.(*value.List)
	if !ok {
		return false
	}
	out := false
	for _, e := range l.Items {
		switch x := e.(type) {
		case *value.Map:
			if x.Len() == 0 {
				continue
			}
			k, v := x.At(0)
			if opts, ok := v.(*value.Map); ok && value.Truthy(mustGet(opts, "regex")) {
				re, err := regexp.Compile(value.Str(k))
				if err != nil {
					ctx.Log.Warn("Failed to compile regex: " + value.Str(k))
					continue
				}
				if re.MatchString(pathname) {
					out = true
				}
			}
		default:
			s := value.Str(x)
			if strings.Contains(s, "*") {
				if match.Fnmatch(pathname, s) {
					out = true
				}
			} else if strings.HasPrefix(pathname, s) {
				out = true
			}
		}
	}
	return out
}

// maskName is pyinotify's maskname: the event's flag, with |IN_ISDIR
// for a directory.
func maskName(mask uint32) string {
	suffix := ""
	if mask&unix.IN_ISDIR != 0 {
		mask &^= unix.IN_ISDIR
		suffix = "|IN_ISDIR"
	}
	var names []string
	for name, bit := range inotifyMasks {
		if mask&bit != 0 && name != "isdir" {
			names = append(names, "IN_"+strings.ToUpper(name))
		}
	}
	sort.Strings(names)
	return strings.Join(names, "|") + suffix
}
