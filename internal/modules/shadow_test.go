package modules

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"brine/internal/system/usermgr"
	"brine/internal/value"
)

const shadowSample = "root:$6$abc$hash:19000:0:99999:7:::\nbob:!$6$x$y:19500:1:90:7:30:20000:\ncarol::19600::::::\n"

func shadowRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "etc"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "etc/shadow"), []byte(shadowSample), 0o640); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestShadowRead(t *testing.T) {
	ctx := testContext()
	root := shadowRoot(t)
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"shadow.info", []any{"bob", root}, "{'name': 'bob', 'passwd': '!$6$x$y', 'lstchg': 19500, 'min': 1, 'max': 90, 'warn': 7, 'inact': 30, 'expire': 20000}"},
		{"shadow.info", []any{"carol", root}, "{'name': 'carol', 'passwd': '', 'lstchg': 19600, 'min': -1, 'max': -1, 'warn': -1, 'inact': -1, 'expire': -1}"},
		{"shadow.info", []any{"nobody-here", root}, "{'name': '', 'passwd': '', 'lstchg': '', 'min': '', 'max': '', 'warn': '', 'inact': '', 'expire': ''}"},
		{"shadow.list_users", []any{root}, "['bob', 'carol', 'root']"},
		{"shadow.default_hash", nil, "'!'"},
		// The early answers, before any command: no such user, or the value
		// already set.
		{"shadow.set_maxdays", []any{"nobody-here", int64(5), root}, "False"},
		{"shadow.set_maxdays", []any{"bob", int64(90), root}, "True"},
		{"shadow.set_warndays", []any{"bob", int64(7), root}, "True"},
		{"shadow.set_expire", []any{"carol", int64(-1), root}, "True"},
		{"shadow.lock_password", []any{"bob", root}, "True"},
		{"shadow.unlock_password", []any{"carol", root}, "True"},
		{"shadow.lock_password", []any{"nobody-here", root}, "False"},
	} {
		if got := value.Repr(call(t, ctx, tc.fun, tc.args)); got != tc.want {
			t.Errorf("%s%v = %s, want %s", tc.fun, tc.args, got, tc.want)
		}
	}
	// The machine's own shadow file.
	if info := call(t, ctx, "shadow.info", []any{"root"}).(*value.Map); shadowGet(info, "name") != "root" {
		t.Errorf("info root = %s", value.Repr(info))
	}
	if users := call(t, ctx, "shadow.list_users", nil).(*value.List); !hostsContains(users, "root") {
		t.Errorf("list_users lacks root: %s", value.Repr(users))
	}
}

func TestShadowSetPassword(t *testing.T) {
	ctx := testContext()
	root := shadowRoot(t)
	h := call(t, ctx, "shadow.gen_password", []any{"pw"}).(string)
	if got := call(t, ctx, "shadow.set_password", []any{"root", h}, "root", root); got != true {
		t.Fatalf("set_password = %v", got)
	}
	data, _ := os.ReadFile(filepath.Join(root, "etc/shadow"))
	days := strconv.FormatInt(time.Date(time.Now().Year(), time.Now().Month(), time.Now().Day(), 0, 0, 0, 0, time.UTC).Unix()/86400, 10)
	want := "root:" + h + ":" + days + ":0:99999:7:::\n" + strings.SplitN(shadowSample, "\n", 2)[1]
	if string(data) != want {
		t.Errorf("shadow =\n%s\nwant\n%s", data, want)
	}
	if got := call(t, ctx, "shadow.set_password", []any{"no-such-user-zz", "x"}, "root", root); got != false {
		t.Errorf("set_password of an unknown user = %v", got)
	}
	// A user the system has but the file lacks gets a line appended.
	if err := os.WriteFile(filepath.Join(root, "etc/shadow"), []byte("bob:x:1::::::\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if got := call(t, ctx, "shadow.set_password", []any{"root", "HASH"}, "root", root); got != true {
		t.Errorf("set_password (appended) = %v", got)
	}
	data, _ = os.ReadFile(filepath.Join(root, "etc/shadow"))
	if string(data) != "bob:x:1::::::\nroot:HASH:"+days+"::::::\n" {
		t.Errorf("shadow after append = %q", data)
	}
	empty := t.TempDir()
	if got := call(t, ctx, "shadow.set_password", []any{"root", "HASH"}, "root", empty); value.Repr(got) != "{}" {
		t.Errorf("set_password without a shadow file = %s", value.Repr(got))
	}
}

func TestShadowGenPassword(t *testing.T) {
	ctx := testContext()
	for _, alg := range []string{"sha512", "sha256", "md5"} {
		h := call(t, ctx, "shadow.gen_password", []any{"secret"}, "algorithm", alg).(string)
		prefix := map[string]string{"sha512": "$6$", "sha256": "$5$", "md5": "$1$"}[alg]
		if !strings.HasPrefix(h, prefix) {
			t.Errorf("%s hash %q", alg, h)
			continue
		}
		salt := strings.Split(h, "$")[2]
		again := call(t, ctx, "shadow.gen_password", []any{"secret", salt, alg}).(string)
		if again != h {
			t.Errorf("%s: rehash with the salt %q = %q, want %q", alg, salt, again, h)
		}
	}
	if h := call(t, ctx, "shadow.gen_password", []any{"x"}).(string); !usermgr.VerifyHash("x", h) || len(strings.Split(h, "$")[2]) != 16 {
		t.Errorf("default hash %q", h)
	}
	if _, err := ctx.Call("shadow.gen_password", []any{"x"}, value.MapOf("algorithm", "whirlpool")); err == nil || err.Error() !=
		"Cannot hash using 'whirlpool' hash algorithm. Natively supported algorithms are: ['sha512', 'sha256', 'blowfish', 'md5', 'crypt']. "+
			"If passlib is installed (False), the supported algorithms are: ['sha512', 'sha256', 'blowfish', 'md5', 'crypt']." {
		t.Errorf("whirlpool: %v", err)
	}
	// Random salts: bcrypt's cost 12 and 22 characters, DES's 2.
	if h := call(t, ctx, "shadow.gen_password", []any{"x"}, "algorithm", "crypt").(string); len(h) != 13 || usermgr.DESCrypt("x", h[:2]) != h {
		t.Errorf("crypt hash %q", h)
	}
	if h := call(t, ctx, "shadow.gen_password", []any{"x"}, "algorithm", "blowfish").(string); len(h) != 60 || !strings.HasPrefix(h, "$2b$12$") ||
		usermgr.Bcrypt("x", h[:29]) != h {
		t.Errorf("blowfish hash %q", h)
	}
}

// TestShadowCommands checks the chage and passwd commands without running
// them.
func TestShadowCommands(t *testing.T) {
	root := shadowRoot(t)
	for _, tc := range []struct {
		fun  string
		args []any
		want string
		cmds string
	}{
		{"shadow.set_maxdays", []any{"bob", int64(60), root}, "False", "chage -R " + root + " -M 60 bob"},
		{"shadow.set_mindays", []any{"root", int64(2), root}, "False", "chage -R " + root + " -m 2 root"},
		{"shadow.set_inactdays", []any{"root", int64(3), root}, "False", "chage -R " + root + " -I 3 root"},
		{"shadow.set_date", []any{"root", "2020-01-01", root}, "True", "chage -R " + root + " -d 2020-01-01 root"},
		{"shadow.set_expire", []any{"root", int64(30000), root}, "True", "chage -R " + root + " -E 30000 root"},
		{"shadow.del_password", []any{"bob", root}, "False", "passwd -R " + root + " -d bob"},
		{"shadow.lock_password", []any{"root", root}, "False", "passwd -R " + root + " -l root"},
		{"shadow.unlock_password", []any{"bob", root}, "False", "passwd -R " + root + " -u bob"},
		{"shadow.set_password", []any{"root", "HASH", true, root}, "False", "id root|usermod -R " + root + " -p HASH root"},
	} {
		r := &cmdRecorder{}
		got := call(t, r.context(), tc.fun, tc.args)
		if value.Repr(got) != tc.want || strings.Join(r.cmds, "|") != tc.cmds {
			t.Errorf("%s%v = %s with %q, want %s with %q", tc.fun, tc.args, value.Repr(got), r.cmds, tc.want, tc.cmds)
		}
	}
}
