// Package usermgr reads the user database (/etc/passwd, /etc/group,
// /etc/shadow) natively and changes it with the shadow-utils commands
// (useradd, usermod, userdel, groupadd, groupmod, groupdel, gpasswd).
package usermgr

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"brine/internal/system"
)

// User is one /etc/passwd entry.
type User struct {
	Name, Passwd string
	UID, GID     int64
	Gecos        string
	Home, Shell  string
	FullName     string // first GECOS field
	RoomNumber   string
	WorkPhone    string
	HomePhone    string
	Other        string
}

// Group is one /etc/group entry.
type Group struct {
	Name, Passwd string
	GID          int64
	Members      []string
}

// Shadow is one /etc/shadow entry (ages in days, -1 when empty).
type Shadow struct {
	Name, Passwd                      string
	LastChange, Min, Max, Warn, Inact int64
	Expire                            int64
}

// DB reads and changes the user database.
type DB struct {
	Runner system.Runner
	// Root is the root directory whose /etc is read ("" for /); commands
	// get --root when it is set.
	Root string
}

// New returns a DB for this machine.
func New(r system.Runner) *DB { return &DB{Runner: r} }

func (d *DB) path(p string) string { return filepath.Join("/", d.Root, p) }

func readColon(path string, min int) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '+' || line[0] == '-' {
			continue
		}
		f := strings.Split(line, ":")
		if len(f) < min {
			continue
		}
		out = append(out, f)
	}
	return out, sc.Err()
}

func atoi(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return -1
	}
	return n
}

// Users returns every user, in file order.
func (d *DB) Users() ([]User, error) {
	rows, err := readColon(d.path("/etc/passwd"), 7)
	if err != nil {
		return nil, err
	}
	out := make([]User, 0, len(rows))
	for _, f := range rows {
		u := User{Name: f[0], Passwd: f[1], UID: atoi(f[2]), GID: atoi(f[3]), Gecos: f[4], Home: f[5], Shell: f[6]}
		g := strings.SplitN(f[4], ",", 5)
		for len(g) < 5 {
			g = append(g, "")
		}
		u.FullName, u.RoomNumber, u.WorkPhone, u.HomePhone, u.Other = g[0], g[1], g[2], g[3], g[4]
		out = append(out, u)
	}
	return out, nil
}

// User returns the user name, ok false when there is none.
func (d *DB) User(name string) (User, bool, error) {
	us, err := d.Users()
	return first(us, err, func(u User) bool { return u.Name == name })
}

// Groups returns every group, in file order.
func (d *DB) Groups() ([]Group, error) {
	rows, err := readColon(d.path("/etc/group"), 4)
	if err != nil {
		return nil, err
	}
	out := make([]Group, 0, len(rows))
	for _, f := range rows {
		g := Group{Name: f[0], Passwd: f[1], GID: atoi(f[2])}
		if f[3] != "" {
			g.Members = strings.Split(f[3], ",")
		}
		out = append(out, g)
	}
	return out, nil
}

// Group returns the group name, ok false when there is none.
func (d *DB) Group(name string) (Group, bool, error) {
	gs, err := d.Groups()
	return first(gs, err, func(g Group) bool { return g.Name == name })
}

// GroupByGID returns the first group with gid.
func (d *DB) GroupByGID(gid int64) (Group, bool, error) {
	gs, err := d.Groups()
	return first(gs, err, func(g Group) bool { return g.GID == gid })
}

// first returns the first of items that match accepts, passing err on.
func first[T any](items []T, err error, match func(T) bool) (T, bool, error) {
	var zero T
	if err != nil {
		return zero, false, err
	}
	for _, it := range items {
		if match(it) {
			return it, true, nil
		}
	}
	return zero, false, nil
}

// UserGroups returns the names of the groups of user: the primary group
// first, then the supplementary ones in /etc/group order.
func (d *DB) UserGroups(name string) ([]string, error) {
	u, ok, err := d.User(name)
	if err != nil || !ok {
		return nil, err
	}
	gs, err := d.Groups()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, g := range gs {
		if g.GID == u.GID {
			out = append(out, g.Name)
			break
		}
	}
	for _, g := range gs {
		if g.GID == u.GID {
			continue
		}
		for _, m := range g.Members {
			if m == name {
				out = append(out, g.Name)
				break
			}
		}
	}
	return out, nil
}

// Shadow returns the shadow entry of name (ok false when there is none or
// the file cannot be read).
func (d *DB) Shadow(name string) (Shadow, bool, error) {
	rows, err := readColon(d.path("/etc/shadow"), 8)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return Shadow{}, false, nil
	}
	if err != nil {
		return Shadow{}, false, err
	}
	for _, f := range rows {
		if f[0] != name {
			continue
		}
		return Shadow{Name: f[0], Passwd: f[1], LastChange: atoi(f[2]), Min: atoi(f[3]), Max: atoi(f[4]),
			Warn: atoi(f[5]), Inact: atoi(f[6]), Expire: atoi(f[7])}, true, nil
	}
	return Shadow{}, false, nil
}

// UserSpec describes a user to create or the fields to change (nil or ""
// fields are left alone).
type UserSpec struct {
	Name       string
	UID, GID   *int64
	Group      string // primary group by name (instead of GID)
	Groups     []string
	SetGroups  bool // apply Groups (an empty list removes all)
	Home       string
	CreateHome *bool
	Shell      string
	Password   string // hash for /etc/shadow
	Fullname   *string
	System     bool
	Unique     *bool // false allows a duplicate uid
	UserGroup  *bool // create a group of the same name
	MoveHome   bool
	NoLogInit  bool // useradd -l: no lastlog and faillog entries
}

func (d *DB) rootArgs() []string {
	if d.Root == "" {
		return nil
	}
	return []string{"--root", d.Root}
}

// AddUser runs useradd.
func (d *DB) AddUser(ctx context.Context, s UserSpec) error {
	args := d.rootArgs()
	if s.UID != nil {
		args = append(args, "-u", strconv.FormatInt(*s.UID, 10))
	}
	switch {
	case s.Group != "":
		args = append(args, "-g", s.Group)
	case s.GID != nil:
		args = append(args, "-g", strconv.FormatInt(*s.GID, 10))
	}
	if s.UserGroup != nil {
		if *s.UserGroup {
			args = append(args, "-U")
		} else {
			args = append(args, "-N")
		}
	}
	if len(s.Groups) > 0 {
		args = append(args, "-G", strings.Join(s.Groups, ","))
	}
	if s.Home != "" {
		args = append(args, "-d", s.Home)
	}
	if s.CreateHome != nil {
		if *s.CreateHome {
			args = append(args, "-m")
		} else {
			args = append(args, "-M")
		}
	}
	if s.Shell != "" {
		args = append(args, "-s", s.Shell)
	}
	if s.Password != "" {
		args = append(args, "-p", s.Password)
	}
	if s.Fullname != nil {
		args = append(args, "-c", *s.Fullname)
	}
	if s.System {
		args = append(args, "-r")
	}
	if s.NoLogInit {
		args = append(args, "-l")
	}
	if s.Unique != nil && !*s.Unique {
		args = append(args, "-o")
	}
	args = append(args, s.Name)
	_, err := system.Must(ctx, d.Runner, system.Cmd{Name: "useradd", Args: args})
	return err
}

// ModUser runs usermod with the fields of s that are set; it does
// nothing when none is.
func (d *DB) ModUser(ctx context.Context, name string, s UserSpec) error {
	var args []string
	if s.Name != "" && s.Name != name {
		args = append(args, "-l", s.Name)
	}
	if s.UID != nil {
		args = append(args, "-u", strconv.FormatInt(*s.UID, 10))
	}
	switch {
	case s.Group != "":
		args = append(args, "-g", s.Group)
	case s.GID != nil:
		args = append(args, "-g", strconv.FormatInt(*s.GID, 10))
	}
	if s.SetGroups {
		args = append(args, "-G", strings.Join(s.Groups, ","))
	}
	if s.Home != "" {
		args = append(args, "-d", s.Home)
		if s.MoveHome {
			args = append(args, "-m")
		}
	}
	if s.Shell != "" {
		args = append(args, "-s", s.Shell)
	}
	if s.Password != "" {
		args = append(args, "-p", s.Password)
	}
	if s.Fullname != nil {
		args = append(args, "-c", *s.Fullname)
	}
	if s.Unique != nil && !*s.Unique {
		args = append(args, "-o")
	}
	if len(args) == 0 {
		return nil
	}
	args = append(append(d.rootArgs(), args...), name)
	_, err := system.Must(ctx, d.Runner, system.Cmd{Name: "usermod", Args: args})
	return err
}

// DelUser runs userdel (-r removes the home, -f forces).
func (d *DB) DelUser(ctx context.Context, name string, removeHome, force bool) error {
	args := d.rootArgs()
	if removeHome {
		args = append(args, "-r")
	}
	if force {
		args = append(args, "-f")
	}
	_, err := system.Must(ctx, d.Runner, system.Cmd{Name: "userdel", Args: append(args, name)})
	return err
}

// AddGroup runs groupadd.
func (d *DB) AddGroup(ctx context.Context, name string, gid *int64, sys, nonUnique bool) error {
	args := d.rootArgs()
	if gid != nil {
		args = append(args, "-g", strconv.FormatInt(*gid, 10))
	}
	if sys {
		args = append(args, "-r")
	}
	if nonUnique {
		args = append(args, "-o")
	}
	_, err := system.Must(ctx, d.Runner, system.Cmd{Name: "groupadd", Args: append(args, name)})
	return err
}

// ModGroupGID runs groupmod -g.
func (d *DB) ModGroupGID(ctx context.Context, name string, gid int64) error {
	args := append(d.rootArgs(), "-g", strconv.FormatInt(gid, 10), name)
	_, err := system.Must(ctx, d.Runner, system.Cmd{Name: "groupmod", Args: args})
	return err
}

// DelGroup runs groupdel.
func (d *DB) DelGroup(ctx context.Context, name string) error {
	_, err := system.Must(ctx, d.Runner, system.Cmd{Name: "groupdel", Args: append(d.rootArgs(), name)})
	return err
}

// AddMember runs gpasswd -a.
func (d *DB) AddMember(ctx context.Context, group, user string) error {
	args := append(d.rootArgs(), "-a", user, group)
	_, err := system.Must(ctx, d.Runner, system.Cmd{Name: "gpasswd", Args: args})
	return err
}

// DelMember runs gpasswd -d.
func (d *DB) DelMember(ctx context.Context, group, user string) error {
	args := append(d.rootArgs(), "-d", user, group)
	_, err := system.Must(ctx, d.Runner, system.Cmd{Name: "gpasswd", Args: args})
	return err
}

// SetMembers runs gpasswd -M: the group's members become exactly users.
func (d *DB) SetMembers(ctx context.Context, group string, users []string) error {
	args := append(d.rootArgs(), "-M", strings.Join(users, ","), group)
	_, err := system.Must(ctx, d.Runner, system.Cmd{Name: "gpasswd", Args: args})
	return err
}

// ErrNoUser is returned for changes to a user that does not exist.
var ErrNoUser = errors.New("user does not exist")

// SetPassword sets the password hash of name with usermod -p.
func (d *DB) SetPassword(ctx context.Context, name, hash string) error {
	if _, ok, err := d.User(name); err != nil {
		return err
	} else if !ok {
		return fmt.Errorf("%s: %w", name, ErrNoUser)
	}
	args := append(d.rootArgs(), "-p", hash, name)
	_, err := system.Must(ctx, d.Runner, system.Cmd{Name: "usermod", Args: args})
	return err
}

// UserGroupsEnabled reports whether /etc/login.defs turns USERGROUPS_ENAB
// on, read the way Salt's useradd module reads it: the first line naming
// the option within its first 15 characters decides.
func UserGroupsEnabled() bool {
	data, err := os.ReadFile("/etc/login.defs")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line[:min(15, len(line))], "USERGROUPS_ENAB") {
			return strings.Contains(line, "yes")
		}
	}
	return false
}
