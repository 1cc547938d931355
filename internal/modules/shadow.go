package modules

// shadow.go is salt/modules/linux_shadow.py: the shadow password file
// (/etc/shadow, or <root>/etc/shadow), read directly and changed with
// chage and passwd as Salt does; gen_password hashes in pure Go.

import (
	"crypto/rand"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"brine/internal/execmod"
	"brine/internal/system/usermgr"
	"brine/internal/value"
)

func init() {
	execmod.Register("shadow.default_hash", shadowDefaultHash, "Return the hash of a new account with no password ('!').")
	execmod.Register("shadow.info", shadowInfo, "Return the shadow entry of user name: name, passwd, lstchg, min, max, warn, inact, expire (root=None).")
	execmod.Register("shadow.set_inactdays", shadowSetter("set_inactdays", "inactdays", "inact", "-I", true), "Set the days after password expiry before user name is locked (chage -I).")
	execmod.Register("shadow.set_maxdays", shadowSetter("set_maxdays", "maxdays", "max", "-M", true), "Set the maximum days between password changes of user name (chage -M).")
	execmod.Register("shadow.set_mindays", shadowSetter("set_mindays", "mindays", "min", "-m", true), "Set the minimum days between password changes of user name (chage -m).")
	execmod.Register("shadow.set_warndays", shadowSetter("set_warndays", "warndays", "warn", "-W", true), "Set the days of warning before the password of user name expires (chage -W).")
	execmod.Register("shadow.set_date", shadowSetter("set_date", "date", "lstchg", "-d", false), "Set the date of the last password change of user name (chage -d).")
	execmod.Register("shadow.set_expire", shadowSetter("set_expire", "expire", "expire", "-E", false), "Set the date the account of user name expires (chage -E).")
	execmod.Register("shadow.gen_password", shadowGenPassword, "Return the crypt(3) hash of password (crypt_salt=None algorithm=sha512|sha256|blowfish|md5|crypt).")
	execmod.Register("shadow.del_password", shadowPasswdFlag("del_password", "-d"), "Delete the password of user name (passwd -d): True when it is empty after.")
	execmod.Register("shadow.lock_password", shadowPasswdFlag("lock_password", "-l"), "Lock the password of user name (passwd -l).")
	execmod.Register("shadow.unlock_password", shadowPasswdFlag("unlock_password", "-u"), "Unlock the password of user name (passwd -u).")
	execmod.Register("shadow.set_password", shadowSetPassword, "Set the password hash of user name in the shadow file (or with usermod -p when use_usermod=True).")
	execmod.Register("shadow.list_users", shadowListUsers, "Return the sorted user names of the shadow file (root=None).")
}

func shadowDefaultHash(*execmod.Context, []any, *value.Map) (any, error) { return "!", nil }

// shadowFile is the shadow file under root ("" or nil: /etc/shadow).
func shadowFile(root any) string {
	if root == nil || !value.Truthy(root) {
		return "/etc/shadow"
	}
	return filepath.Join(value.Str(root), "etc/shadow")
}

// shadowEntry is one line of the shadow file as spwd gives it: empty
// number fields are -1.
type shadowEntry struct {
	fields []string
}

func (e shadowEntry) num(i int) any {
	if i >= len(e.fields) || e.fields[i] == "" {
		return int64(-1)
	}
	n, err := strconv.ParseInt(e.fields[i], 10, 64)
	if err != nil {
		return e.fields[i]
	}
	return n
}

func shadowRead(root any) ([]shadowEntry, error) {
	data, err := os.ReadFile(shadowFile(root))
	if err != nil {
		return nil, err
	}
	var out []shadowEntry
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		out = append(out, shadowEntry{fields: strings.Split(line, ":")})
	}
	return out, nil
}

// shadowInfoOf is shadow.info: the entry of name, all fields "" when
// there is none.
func shadowInfoOf(name string, root any) *value.Map {
	if entries, err := shadowRead(root); err == nil {
		for _, e := range entries {
			if e.fields[0] == name {
				pw := ""
				if len(e.fields) > 1 {
					pw = e.fields[1]
				}
				return value.MapOf("name", name, "passwd", pw, "lstchg", e.num(2), "min", e.num(3), "max", e.num(4),
					"warn", e.num(5), "inact", e.num(6), "expire", e.num(7))
			}
		}
	}
	return value.MapOf("name", "", "passwd", "", "lstchg", "", "min", "", "max", "", "warn", "", "inact", "", "expire", "")
}

func shadowInfo(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("info", args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	return shadowInfoOf(value.Str(v[0]), v[1]), nil
}

func shadowGet(m *value.Map, k string) any {
	x, _ := m.Get(k)
	return x
}

// shadowSetter is _set_attrib: chage param value name, True when the
// field already has the value; with validate the field is read back.
func shadowSetter(fun, arg, key, param string, validate bool) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("name"), execmod.Req(arg), execmod.Opt("root", nil))
		if err != nil {
			return nil, err
		}
		name := value.Str(v[0])
		pre := shadowInfoOf(name, v[2])
		if shadowGet(pre, "name") == "" {
			return false, nil
		}
		if value.Equal(v[1], shadowGet(pre, key)) {
			return true, nil
		}
		cmd := value.NewList("chage")
		if v[2] != nil {
			cmd.Append("-R", value.Str(v[2]))
		}
		cmd.Append(param, value.Str(v[1]), name)
		rc, err := ctx.Call("cmd.retcode", []any{cmd}, value.MapOf("python_shell", false))
		if err != nil {
			return nil, err
		}
		ok := value.Equal(rc, int64(0))
		if validate {
			ok = value.Equal(shadowGet(shadowInfoOf(name, v[2]), key), v[1])
		}
		return ok, nil
	}
}

// shadowPasswdFlag is del_password (-d), lock_password (-l) and
// unlock_password (-u): passwd with the flag, checked by reading back.
func shadowPasswdFlag(fun, flag string) execmod.Func {
	return func(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
		v, _, err := execmod.Bind(fun, args, kwargs, execmod.Req("name"), execmod.Opt("root", nil))
		if err != nil {
			return nil, err
		}
		name := value.Str(v[0])
		if flag != "-d" {
			pre := shadowInfoOf(name, v[1])
			if shadowGet(pre, "name") == "" {
				return false, nil
			}
			if locked := strings.HasPrefix(value.Str(shadowGet(pre, "passwd")), "!"); locked == (flag == "-l") {
				return true, nil
			}
		}
		cmd := value.NewList("passwd")
		if v[1] != nil {
			cmd.Append("-R", value.Str(v[1]))
		}
		cmd.Append(flag, name)
		kw := value.MapOf("python_shell", false)
		if flag == "-d" {
			kw.Set("output_loglevel", "quiet")
		}
		if _, err := ctx.Call("cmd.run", []any{cmd}, kw); err != nil {
			return nil, err
		}
		after := shadowInfoOf(name, v[1])
		pw := value.Str(shadowGet(after, "passwd"))
		switch flag {
		case "-d":
			return pw == "" && shadowGet(after, "name") == name, nil
		case "-l":
			return strings.HasPrefix(pw, "!"), nil
		}
		return !strings.HasPrefix(pw, "!"), nil
	}
}

const shadowItoa64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func shadowRandomSalt(n int) (string, error) {
	b := make([]byte, n)
	for i := range b {
		k, err := rand.Int(rand.Reader, big.NewInt(64))
		if err != nil {
			return "", err
		}
		b[i] = shadowItoa64[k.Int64()]
	}
	return string(b), nil
}

// shadowHash is salt.utils.pycrypto.gen_hash for the algorithms brine
// hashes natively.
func shadowHash(password string, salt any, algorithm string) (string, error) {
	switch algorithm {
	case "sha512", "sha256":
		id := map[string]string{"sha512": "$6$", "sha256": "$5$"}[algorithm]
		s := value.Str(salt)
		if salt == nil {
			var err error
			if s, err = shadowRandomSalt(16); err != nil {
				return "", err
			}
		}
		return usermgr.ShaCrypt(password, id+s), nil
	case "md5":
		s := value.Str(salt)
		if salt == nil {
			var err error
			if s, err = shadowRandomSalt(8); err != nil {
				return "", err
			}
		}
		return usermgr.MD5Crypt(password, s, "$1$"), nil
	case "blowfish":
		s := value.Str(salt)
		if salt == nil {
			// crypt.mksalt: cost 12 and 22 characters.
			r, err := shadowRandomSalt(22)
			if err != nil {
				return "", err
			}
			s = "12$" + r
		}
		return usermgr.Bcrypt(password, "$2b$"+s), nil
	case "crypt":
		s := value.Str(salt)
		if salt == nil {
			r, err := shadowRandomSalt(2)
			if err != nil {
				return "", err
			}
			s = r
		} else if len(s) != 2 {
			slog.Warn("Hash salt is too long for 'crypt' hash.")
		}
		return usermgr.DESCrypt(password, s), nil
	}
	return "", &execmod.InvocationError{Msg: "Cannot hash using '" + algorithm + "' hash algorithm. Natively supported algorithms are: ['sha512', 'sha256', 'blowfish', 'md5', 'crypt']. If passlib is installed (False), the supported algorithms are: ['sha512', 'sha256', 'blowfish', 'md5', 'crypt']."}
}

func shadowGenPassword(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("gen_password", args, kwargs, execmod.Req("password"), execmod.Opt("crypt_salt", nil), execmod.Opt("algorithm", "sha512"))
	if err != nil {
		return nil, err
	}
	alg := "sha512"
	if v[2] != nil {
		alg = value.Str(v[2])
	}
	pw := ""
	if v[0] != nil {
		pw = value.Str(v[0])
	} else {
		s, err := shadowRandomSalt(20)
		if err != nil {
			return nil, err
		}
		pw = s
	}
	return shadowHash(pw, v[1], alg)
}

func shadowSetPassword(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("set_password", args, kwargs, execmod.Req("name"), execmod.Req("password"),
		execmod.Opt("use_usermod", false), execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	name, password, root := value.Str(v[0]), value.Str(v[1]), v[3]
	rc, err := ctx.Call("cmd.retcode", []any{value.NewList("id", name)}, value.MapOf("ignore_retcode", true))
	if err != nil {
		return nil, err
	}
	if !value.Equal(rc, int64(0)) {
		slog.Warn("user " + name + " does not exist, cannot set password")
		return false, nil
	}
	if shadowIsTrue(v[2]) {
		cmd := value.NewList("usermod")
		if root != nil {
			cmd.Append("-R", value.Str(root))
		}
		cmd.Append("-p", password, name)
		if _, err := ctx.Call("cmd.run", []any{cmd}, value.MapOf("python_shell", false, "output_loglevel", "quiet")); err != nil {
			return nil, err
		}
		return value.Str(shadowGet(shadowInfoOf(name, root), "passwd")) == password, nil
	}
	sfile := "/etc/shadow"
	if g, _ := ctx.Grains.Get("os"); g == "ALT" {
		sfile = "/etc/tcb/" + name + "/shadow"
	}
	if value.Truthy(root) {
		sfile = filepath.Join(value.Str(root), strings.TrimPrefix(sfile, "/"))
	}
	if st, err := os.Stat(sfile); err != nil || !st.Mode().IsRegular() {
		return value.NewMap(0), nil
	}
	data, err := os.ReadFile(sfile)
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	now := time.Now()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	lstchg := strconv.FormatInt(today.Unix()/86400, 10)
	var sb strings.Builder
	found := false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		comps := strings.Split(strings.TrimSpace(line), ":")
		if len(comps) > 9 {
			comps = comps[:9]
		}
		if comps[0] == name {
			for len(comps) < 9 {
				comps = append(comps, "")
			}
			found = true
			comps[1], comps[2] = password, lstchg
			line = strings.Join(comps, ":") + "\n"
		}
		sb.WriteString(line)
	}
	if !found {
		slog.Warn("shadow entry not present for user " + name + ", adding")
		f, err := os.OpenFile(sfile, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		_, err = f.WriteString(name + ":" + password + ":" + lstchg + "::::::\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
	} else if err := os.WriteFile(sfile, []byte(sb.String()), 0o640); err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	return value.Str(shadowGet(shadowInfoOf(name, root), "passwd")) == password, nil
}

func shadowListUsers(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("list_users", args, kwargs, execmod.Opt("root", nil))
	if err != nil {
		return nil, err
	}
	entries, err := shadowRead(v[0])
	if err != nil {
		return nil, execmod.Errorf("%s", err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.fields[0])
	}
	sort.Strings(names)
	return strList(names), nil
}

// shadowIsTrue is salt.utils.data.is_true: numbers (and numeric strings)
// above zero, the string "true" in any case, else Python truth.
func shadowIsTrue(x any) bool {
	switch v := x.(type) {
	case bool:
		return v
	case int64:
		return v > 0
	case float64:
		return v > 0
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
			return f > 0
		}
		return strings.ToLower(v) == "true"
	}
	return value.Truthy(x)
}
