package renderers

// gpg.go is salt/renderers/gpg.py: every PGP MESSAGE block in the input is
// decrypted by the real gpg binary with the keyring in gpg_keydir.

import (
	"bytes"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"brine/internal/render"
	"brine/internal/value"
)

func init() {
	render.Default.Register(&render.Entry{
		Name:     "gpg",
		Data:     renderGPG,
		WalkData: true,
		Doc: "Decrypt the PGP MESSAGE blocks of the input with gpg and the keyring in gpg_keydir (salt/renderers/gpg.py). " +
			"Given data (`#!yaml|gpg`), every string in it is decrypted in place.",
	})
}

// pgpBlock matches one ASCII-armored PGP message, shortest first.
var pgpBlock = regexp.MustCompile(`(?s)-----BEGIN PGP MESSAGE-----.*?-----END PGP MESSAGE-----`)

// GPGTranslateNewlines is the argline that makes the renderer turn a
// literal `\n` into a newline before decrypting (Salt's
// translate_newlines=True, used for command-line pillar).
const GPGTranslateNewlines = "translate_newlines=True"

// renderGPG decrypts the PGP blocks of src. With no block src comes back
// unchanged; otherwise each block is replaced by its plaintext (or left as
// is when it cannot be decrypted and gpg_decrypt_must_succeed is off) and
// trailing newlines of the whole result are removed, as Salt does.
func renderGPG(src string, rc *render.Context, argline string) (any, error) {
	var opts, grains, pillar *value.Map
	if rc != nil {
		opts, grains, pillar = rc.Opts, rc.Grains, rc.Pillar
	}
	if strings.Contains(argline, "translate_newlines") {
		src = strings.ReplaceAll(src, `\n`, "\n")
	}
	if !strings.Contains(src, "-----BEGIN PGP MESSAGE-----") {
		return src, nil
	}
	gpgPath, err := exec.LookPath("gpg")
	if err != nil {
		return nil, &render.Error{Msg: "GPG unavailable"}
	}
	keydir := gpgKeyDir(opts, grains, pillar)
	mustSucceed := false
	if v, ok := opts.GetString("gpg_decrypt_must_succeed"); ok {
		mustSucceed = value.Truthy(v)
	}
	var firstErr error
	out := pgpBlock.ReplaceAllStringFunc(src, func(block string) string {
		if firstErr != nil {
			return block
		}
		plain, err := gpgDecrypt(gpgPath, keydir, strings.ReplaceAll(block, `\n`, "\n"), mustSucceed)
		if err != nil {
			firstErr = err
			return block
		}
		return plain
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return strings.TrimRight(out, "\n"), nil
}

// gpgDecrypt runs gpg -d on one block. When gpg prints nothing the block
// is returned unchanged, or, with mustSucceed, an error quoting the cipher
// and gpg's messages as Salt does.
func gpgDecrypt(gpgPath, keydir, cipher string, mustSucceed bool) (string, error) {
	cmd := exec.Command(gpgPath, "--homedir", keydir, "--status-fd", "2", "--no-tty", "-d")
	cmd.Stdin = strings.NewReader(cipher)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run() // gpg's exit status is not consulted, only its output
	if stdout.Len() == 0 {
		// Ciphertext and gpg's messages only: never plaintext.
		slog.Warn(fmt.Sprintf("Could not decrypt cipher %s, received: %s", value.Repr([]byte(cipher)), value.Repr(stderr.Bytes())))
		if mustSucceed {
			return "", &render.Error{Msg: fmt.Sprintf("Could not decrypt cipher %s, received: %s",
				value.Repr([]byte(cipher)), value.Repr(stderr.Bytes()))}
		}
		return cipher, nil
	}
	return stdout.String(), nil
}

// gpgKeyDir is Salt's _get_key_dir: config.get("gpg_keydir") (options,
// grains, pillar), else gpgkeys beside the minion config file.
func gpgKeyDir(opts, grains, pillar *value.Map) string {
	for _, m := range []*value.Map{opts, grains, pillar} {
		if v, ok := m.GetString("gpg_keydir"); ok && value.Truthy(v) {
			return value.Str(v)
		}
	}
	if v, ok := opts.GetString("config_dir"); ok && value.Truthy(v) {
		return filepath.Join(value.Str(v), "gpgkeys")
	}
	conf := "/etc/salt/minion"
	if v, ok := opts.GetString("conf_file"); ok && value.Truthy(v) {
		conf = value.Str(v)
	}
	return filepath.Join(filepath.Dir(conf), "gpgkeys")
}
