package modules

import (
	"os"
	"path/filepath"
	"testing"

	"brine/internal/value"
)

func TestFileCheckPerms(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("chown needs root")
	}
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "f"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(d, "f"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []fileStep{
		{fun: "file.check_perms", args: []any{"{d}/f", nil, "root", "root", "644"},
			want: "({'name': '{d}/f', 'changes': {}, 'comment': '', 'result': True}, {'luser': 'root', 'lgroup': 'root', 'lmode': '0644'})"},
		{fun: "file.check_perms", args: []any{"{d}/f", nil, "nobody", int64(0), "0600"},
			want:  "({'name': '{d}/f', 'changes': {'user': 'nobody', 'mode': '0600'}, 'comment': '', 'result': True}, {'luser': 'root', 'lgroup': 0, 'lmode': '0644', 'cuser': 'nobody', 'cmode': '0600'})",
			after: wantMode("f", 0o600)},
		{fun: "file.check_perms", args: []any{"{d}/f", nil, "no-such-user-x", nil, nil},
			want: "({'name': '{d}/f', 'changes': {}, 'comment': 'User does not exist\\n; Failed to change user to no-such-user-x', 'result': False}, {'luser': 'nobody', 'lgroup': 'root', 'lmode': '0600', 'cuser': 'no-such-user-x'})"},
		{fun: "file.check_perms", args: []any{"{d}/nope", nil, nil, nil, nil}, err: "Path not found: {d}/nope"},
		{fun: "file.check_perms", args: []any{"{d}/f", nil, "root", nil, nil}, kw: []any{"seuser", "system_u"},
			want: "({'name': '{d}/f', 'changes': {'user': 'root'}, 'comment': 'Failed to get selinux attributes', 'result': False}, {'luser': 'nobody', 'lgroup': 'root', 'lmode': '0600', 'cuser': 'root'})"},
	}
	if lookPath("lsattr") != "" && lookPath("chattr") != "" {
		if got, err := lsattrOf(testContext(), d); err == nil && got != nil {
			steps = append(steps,
				fileStep{fun: "file.chattr", args: []any{"{d}/f"}, kw: []any{"operator", "add", "attributes", "A"}, want: "True"},
				fileStep{fun: "file.chattr", args: []any{"{d}/f"}, kw: []any{"operator", "bogus"}, err: "Need an operator: 'add' or 'remove' to modify attributes."},
				fileStep{fun: "file.check_perms", args: []any{"{d}/f", nil, nil, nil, nil}, kw: []any{"attrs", "d"}, want: "*"},
				fileStep{fun: "file.lsattr", args: []any{"{d}/nope"}, err: "File or directory does not exist: {d}/nope"},
			)
		}
	}
	runFileSteps(t, d, steps)
	if lookPath("lsattr") == "" {
		return
	}
	ctx := testContext()
	got, err := lsattrOf(ctx, filepath.Join(d, "f"))
	if err != nil || got == nil {
		t.Skipf("lsattr: %v", err)
	}
	if s := attrString(ctx, filepath.Join(d, "f")); s != "de" && s != "d" {
		t.Errorf("attributes after check_perms attrs=d: %q", s)
	}
	if _, err := ctx.Call("file.chattr", []any{filepath.Join(d, "f")}, mapKV("operator", "remove", "attributes", "d")); err != nil {
		t.Fatal(err)
	}
}

func mapKV(kv ...any) *value.Map { return value.MapOf(kv...) }
