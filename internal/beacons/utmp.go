package beacons

// utmp.go is what salt/beacons/wtmp.py and btmp.py share: both read the
// utmp records appended to their log since the last run (the first run
// only notes where the log ends) and fire one event per record, for the
// configured users (and members of the configured groups), within their
// time_range when one is set. wtmp also names logins and logouts.

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"brine/internal/schedule"
	"brine/internal/value"
)

func init() {
	Register("wtmp", func() Module { return &utmpBeacon{name: "wtmp", path: "/var/log/wtmp", logins: true} })
	Register("btmp", func() Module { return &utmpBeacon{name: "btmp", path: "/var/log/btmp"} })
}

// utmpSize is the size of a utmp record (glibc x86_64 and the like:
// Salt's struct format "hi32s4s32s256shhiii4i20x").
const utmpSize = 384

const (
	loginType  = 7 // USER_PROCESS
	logoutType = 8 // DEAD_PROCESS
)

type utmpBeacon struct {
	name   string
	path   string
	logins bool // wtmp: login and logout actions

	loc  int64             // where the next record starts (0: not read yet)
	ttys map[string]string // the user logged in on each line
}

// Virtual is Salt's __virtual__: the beacon exists where its log does.
func (u *utmpBeacon) Virtual() (bool, string) {
	if st, err := os.Stat(u.path); err == nil && st.Mode().IsRegular() {
		return true, ""
	}
	return false, u.path + " does not exist."
}

func (u *utmpBeacon) validRange(tr any, ok bool, msg string) (bool, string) {
	if !value.Truthy(tr) {
		return ok, msg
	}
	m, isMap := tr.(*value.Map)
	if !isMap {
		ok, msg = false, fmt.Sprintf("The time_range parameter for %s beacon must be a dictionary.", u.name)
	}
	if !isMap || !m.Has("start") || !m.Has("end") {
		ok, msg = false, fmt.Sprintf("The time_range parameter for %s beacon must contain start & end options.", u.name)
	}
	return ok, msg
}

func (u *utmpBeacon) Validate(config any) (bool, string) {
	if !isList(config) {
		return false, fmt.Sprintf("Configuration for %s beacon must be a list.", u.name)
	}
	c := ListToDict(config)
	ok, msg := true, "Valid beacon configuration"
	for _, sect := range []struct{ key, what string }{{"users", "User"}, {"groups", "Group"}} {
		v, has := c.Get(sect.key)
		if !has {
			continue
		}
		m, isMap := v.(*value.Map)
		if !isMap {
			return false, fmt.Sprintf("%s configuration for %s beacon must be a dictionary.", sect.what, u.name)
		}
		for _, e := range m.Values() {
			em, _ := e.(*value.Map)
			ok, msg = u.validRange(mustGet(em, "time_range"), ok, msg)
		}
		if !ok {
			return ok, msg
		}
	}
	if v, has := c.Get("defaults"); has {
		m, isMap := v.(*value.Map)
		if !isMap {
			return false, fmt.Sprintf("Defaults configuration for %s beacon must be a dictionary.", u.name)
		}
		if ok, msg = u.validRange(mustGet(m, "time_range"), ok, msg); !ok {
			return ok, msg
		}
	}
	return ok, msg
}

// inRange is Salt's _check_time_range: start <= now <= end.
func inRange(tr any, now time.Time) (bool, error) {
	m, _ := tr.(*value.Map)
	start, err := schedule.ParseDate(value.Str(mustGet(m, "start")), now)
	if err != nil {
		return false, err
	}
	end, err := schedule.ParseDate(value.Str(mustGet(m, "end")), now)
	if err != nil {
		return false, err
	}
	return !now.Before(start) && !now.After(end), nil
}

// utmpString is a fixed-size field as Salt reads it: NULs stripped from
// both ends.
func utmpString(b []byte) string { return strings.Trim(string(b), "\x00") }

// record decodes a utmp record into Salt's event fields. Salt's names
// for the last four are shifted from glibc's: its exit_status and
// session are ut_exit's two shorts, its time is ut_session and its addr
// the login time's seconds; the events keep Salt's names and values.
func record(raw []byte) *value.Map {
	ne := binary.NativeEndian
	return value.MapOf(
		"type", int64(int16(ne.Uint16(raw[0:]))),
		"PID", int64(int32(ne.Uint32(raw[4:]))),
		"line", utmpString(raw[8:40]),
		"inittab", utmpString(raw[40:44]),
		"user", utmpString(raw[44:76]),
		"hostname", utmpString(raw[76:332]),
		"exit_status", int64(int16(ne.Uint16(raw[332:]))),
		"session", int64(int16(ne.Uint16(raw[334:]))),
		"time", int64(int32(ne.Uint32(raw[336:]))),
		"addr", int64(int32(ne.Uint32(raw[340:]))),
	)
}

func (u *utmpBeacon) Beacon(ctx *Context, config any) ([]*value.Map, error) {
	users, groups := value.NewMap(0), value.NewMap(0)
	var defaults *value.Map
	if l, ok := config.(*value.List); ok {
		for _, it := range l.Items {
			m, _ := it.(*value.Map)
			if v, ok := mustGet(m, "users").(*value.Map); ok {
				users = v
			}
			if v, ok := mustGet(m, "groups").(*value.Map); ok {
				groups = v
			}
			if v, ok := mustGet(m, "defaults").(*value.Map); ok {
				defaults = v
			}
		}
	}
	f, err := os.Open(u.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if u.loc == 0 {
		end, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, err
		}
		u.loc = end
		return nil, nil
	}
	if _, err := f.Seek(u.loc, io.SeekStart); err != nil {
		return nil, err
	}
	if u.ttys == nil {
		u.ttys = map[string]string{}
	}
	var ret []*value.Map
	raw := make([]byte, utmpSize)
	for {
		now := time.Now()
		if _, err := io.ReadFull(f, raw); err != nil {
			return ret, nil
		}
		u.loc += utmpSize
		ev := record(raw)
		line, user := value.Str(mustGet(ev, "line")), value.Str(mustGet(ev, "user"))
		if u.logins {
			switch mustGet(ev, "type") {
			case int64(loginType):
				ev.Set("action", "login")
				u.ttys[line] = user
			case int64(logoutType):
				ev.Set("action", "logout")
				if who, ok := u.ttys[line]; ok {
					delete(u.ttys, line)
					ev.Set("user", who)
					user = who
				}
			}
		}
		for _, g := range groups.Keys() {
			if err := groupMembers(ctx, g, groups, users); err != nil {
				return nil, err
			}
		}
		keep, err := u.keep(users, defaults, user, now)
		if err != nil {
			return nil, err
		}
		if keep {
			ret = append(ret, ev)
		}
	}
}

// keep applies the users' and the defaults' time ranges to a record.
func (u *utmpBeacon) keep(users, defaults *value.Map, user string, now time.Time) (bool, error) {
	var defRange any
	hasDef := false
	if defaults != nil {
		defRange, hasDef = defaults.Get("time_range")
	}
	if users.Len() > 0 {
		uc, ok := users.Get(user)
		if !ok {
			return false, nil
		}
		if m, isMap := uc.(*value.Map); isMap && m.Has("time_range") {
			return inRange(mustGet(m, "time_range"), now)
		}
	}
	if hasDef {
		return inRange(defRange, now)
	}
	return true, nil
}

// groupMembers adds the members of group to users with the group's
// configuration (Salt's _gather_group_members).
func groupMembers(ctx *Context, group any, groups, users *value.Map) error {
	if ctx.Call == nil {
		return fmt.Errorf("'group.info'")
	}
	info, err := ctx.Call("group.info", []any{group}, value.NewMap(0))
	if err != nil {
		return err
	}
	m, _ := info.(*value.Map)
	if m == nil || m.Len() == 0 {
		return nil
	}
	members, _ := mustGet(m, "members").(*value.List)
	if members == nil {
		return nil
	}
	gc, _ := groups.Get(group)
	for _, mem := range members.Items {
		if !users.Has(mem) {
			users.Set(mem, gc)
		}
	}
	return nil
}
