package pillar_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"brine/internal/pillar"
	"brine/internal/value"
)

// gpgHome makes a throwaway GnuPG home holding one unprotected key for
// email and returns its path; the agent is stopped when the test ends.
func gpgHome(t *testing.T, email string) string {
	t.Helper()
	if _, err := exec.LookPath("gpg"); err != nil {
		t.Skip("gpg is not installed (apt-get install gnupg)")
	}
	home, err := os.MkdirTemp("", "gpg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		exec.Command("gpgconf", "--homedir", home, "--kill", "gpg-agent").Run()
		os.RemoveAll(home)
	})
	os.Chmod(home, 0o700)
	gpg(t, home, nil, "--batch", "--pinentry-mode", "loopback", "--passphrase", "",
		"--quick-gen-key", "Brine Test <"+email+">", "future-default", "default", "never")
	return home
}

func gpg(t *testing.T, home string, stdin []byte, args ...string) string {
	t.Helper()
	cmd := exec.Command("gpg", append([]string{"--homedir", home}, args...)...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("gpg %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

func encrypt(t *testing.T, home, email, plain string) string {
	return gpg(t, home, []byte(plain), "--batch", "--trust-model", "always", "--armor", "--encrypt", "--recipient", email)
}

func indent(s, pad string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return pad + strings.Join(lines, "\n"+pad) + "\n"
}

func TestGPGRoundTrip(t *testing.T) {
	mine := gpgHome(t, "mine@brine.test")
	other := gpgHome(t, "other@brine.test")
	cMine := encrypt(t, mine, "mine@brine.test", "s3cret")
	cList := encrypt(t, mine, "mine@brine.test", "in-list\n")
	cOther := encrypt(t, other, "other@brine.test", "theirs")
	// Corrupt the body of a good message.
	lines := strings.Split(cMine, "\n")
	lines[3] = strings.Repeat("A", len(lines[3]))
	cCorrupt := strings.Join(lines, "\n")

	sls := "#!yaml|gpg\nsecrets:\n  mine: |\n" + indent(cMine, "    ") +
		"  list:\n    - plain\n    - |\n" + indent(cList, "      ") +
		"  theirs: |\n" + indent(cOther, "    ")
	files := map[string]string{
		"pillar/top.sls":     "base:\n  '*': [secrets]\n",
		"pillar/secrets.sls": sls,
		"plain/top.sls":      "base:\n  '*': [vault]\n",
		"plain/vault.sls":    "vault:\n  mine: |\n" + indent(cMine, "    ") + "  other: |\n" + indent(cOther, "    ") + "out: |\n" + indent(cMine, "  "),
		"corrupt/top.sls":    "base:\n  '*': [bad]\n",
		"corrupt/bad.sls":    "#!yaml|gpg\nbad: |\n" + indent(cCorrupt, "  "),
	}
	dir := tree(t, files)

	t.Run("renderer", func(t *testing.T) {
		opts := testOpts(t, dir, `{"gpg_keydir": "`+mine+`"}`)
		got := compileWith(t, pillar.Options{Opts: opts})
		want := value.ToJSON(value.MapOf("secrets", value.MapOf(
			"mine", "s3cret",
			"list", value.NewList("plain", "in-list"),
			"theirs", strings.TrimRight(cOther, "\n"),
		)), value.JSONOptions{})
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
	t.Run("must succeed, safe errors", func(t *testing.T) {
		opts := testOpts(t, dir, `{"gpg_keydir": "`+mine+`", "gpg_decrypt_must_succeed": true}`)
		got := compileWith(t, pillar.Options{Opts: opts})
		wv, _ := value.FromJSON([]byte(`{"_errors": ["Rendering SLS 'secrets' failed. Please see master log for details."]}`))
		if want := value.ToJSON(wv, value.JSONOptions{}); got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
	t.Run("must succeed, wrong key, unsafe errors", func(t *testing.T) {
		opts := testOpts(t, dir, `{"gpg_keydir": "`+mine+`", "gpg_decrypt_must_succeed": true, "pillar_safe_render_error": false}`)
		p := compile(t, opts)
		msg := firstError(t, p)
		if !strings.HasPrefix(msg, "Rendering SLS 'secrets' failed, render error:\nCould not decrypt cipher b'-----BEGIN PGP MESSAGE-----\\n") ||
			!strings.Contains(msg, ", received: b'") {
			t.Errorf("message %q", msg)
		}
		if strings.Contains(msg, "s3cret") || strings.Contains(msg, "in-list") {
			t.Errorf("message leaks plaintext: %q", msg)
		}
	})
	t.Run("corrupt message", func(t *testing.T) {
		opts := testOpts(t, dir, `{"pillar_roots": {"base": ["{dir}/corrupt"]}, "gpg_keydir": "`+mine+`", "gpg_decrypt_must_succeed": true, "pillar_safe_render_error": false}`)
		msg := firstError(t, compile(t, opts))
		if !strings.HasPrefix(msg, "Rendering SLS 'bad' failed, render error:\nCould not decrypt cipher b'") {
			t.Errorf("message %q", msg)
		}
	})
	t.Run("decrypt_pillar", func(t *testing.T) {
		opts := testOpts(t, dir, `{"pillar_roots": {"base": ["{dir}/plain"]}, "gpg_keydir": "`+mine+`", "decrypt_pillar": ["vault:mine"]}`)
		p := compile(t, opts)
		if v, _ := value.Traverse(p, "vault:mine", ":"); v != "s3cret" {
			t.Errorf("vault:mine = %s", value.Repr(v))
		}
		if v, _ := value.Traverse(p, "out", ":"); v != cMine {
			t.Errorf("out was decrypted: %s", value.Repr(v))
		}
	})
	t.Run("decrypt_pillar wrong key names the key", func(t *testing.T) {
		opts := testOpts(t, dir, `{"pillar_roots": {"base": ["{dir}/plain"]}, "gpg_keydir": "`+mine+`", "decrypt_pillar": ["vault"], "gpg_decrypt_must_succeed": true}`)
		msg := firstError(t, compile(t, opts))
		if !strings.HasPrefix(msg, "Failed to decrypt pillar key 'vault': Could not decrypt cipher b'") {
			t.Errorf("message %q", msg)
		}
		if strings.Contains(msg, "s3cret") {
			t.Errorf("message leaks plaintext: %q", msg)
		}
	})
	t.Run("pillar_enc", func(t *testing.T) {
		opts := testOpts(t, dir, `{"gpg_keydir": "`+mine+`"}`)
		override := value.MapOf("p", strings.ReplaceAll(cMine, "\n", `\n`))
		got, err := pillar.Service{}.Decrypt(opts, override, "gpg", true)
		if err != nil {
			t.Fatal(err)
		}
		if v, _ := got.(*value.Map).Get("p"); v != "s3cret" {
			t.Errorf("p = %s", value.Repr(v))
		}
		if _, err := (pillar.Service{}).Decrypt(opts, override, "yaml", true); err == nil ||
			err.Error() != "'yaml' is not a valid decryption renderer. Valid choices are: gpg" {
			t.Errorf("err = %v", err)
		}
	})
}

func compile(t *testing.T, opts *value.Map) *value.Map {
	t.Helper()
	p, err := pillar.Compile(pillar.Options{Opts: opts, MinionID: "minion", Render: pillar.Renderers{}.Render(), Decrypt: pillar.Renderers{}.Decrypt(opts)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func firstError(t *testing.T, p *value.Map) string {
	t.Helper()
	v, ok := value.Traverse(p, "_errors:0", ":")
	if !ok {
		t.Fatalf("no _errors in %s", value.ToJSON(p, value.JSONOptions{}))
	}
	return value.Str(v)
}
