package modules

// config_bootstrap.go is config.gather_bootstrap_script of
// salt/modules/config.py with the salt.utils.cloud.update_bootstrap it
// calls: fetch the salt-bootstrap script (from a URL, by default the
// bootstrap_script_url option or Salt's own site, or from a local file)
// and write it into each writable cloud.deploy.d search directory.

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"brine/internal/execmod"
	"brine/internal/value"
)

// bootstrapDefaultURL is where Salt fetches bootstrap-salt.sh from when
// neither the argument nor the bootstrap_script_url option names a source.
const bootstrapDefaultURL = "https://bootstrap.saltstack.com"

func init() {
	execmod.Register("config.gather_bootstrap_script", configGatherBootstrap,
		"Download the salt-bootstrap script (bootstrap: another URL or a local file) into cloud.deploy.d; return its path.")
}

// bootstrapClient downloads the script. Salt's requests.get has no
// timeout; this one stops a stalled server after a generous while.
var bootstrapClient = &http.Client{Timeout: 5 * time.Minute}

func configGatherBootstrap(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("gather_bootstrap_script", args, kwargs, execmod.Opt("bootstrap", nil))
	if err != nil {
		return nil, err
	}
	defURL := bootstrapDefaultURL
	if u, ok := ctx.Opts.Get("bootstrap_script_url"); ok {
		defURL = value.Str(u)
		if u == nil {
			defURL = ""
		}
	}
	src := defURL
	if value.Truthy(v[0]) {
		src = value.Str(v[0])
	}
	if src == "" {
		return nil, &pyValueError{msg: "Cant get any source to update"}
	}
	var content []byte
	var name string
	switch {
	case strings.HasPrefix(src, "http") || strings.Contains(src, "://"):
		slog.Debug("Updating the bootstrap-salt.sh script to latest stable")
		resp, err := bootstrapClient.Get(src)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		content, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		if resp.StatusCode != http.StatusOK {
			// update_bootstrap returns an error dict, which
			// gather_bootstrap_script turns into None.
			slog.Debug(fmt.Sprintf("Failed to download the latest stable version of the bootstrap-salt.sh script from %s. HTTP error: %d", src, resp.StatusCode))
			return nil, nil
		}
		name = pyBasename(src)
		if src == defURL {
			name = "bootstrap-salt.sh"
		}
	case pathExists(src):
		content, err = os.ReadFile(src)
		if err != nil {
			return nil, execmod.Errorf("%s", err)
		}
		name = pyBasename(src)
	default:
		// Salt hashes the text it was given without encoding it first.
		return nil, &execmod.InvocationError{Msg: "Strings must be encoded before hashing."}
	}
	if len(content) == 0 {
		return nil, &pyValueError{msg: "No content in bootstrap script !"}
	}
	var written []string
	for _, d := range bootstrapDirs(ctx) {
		if d.makedirs && !isDir(d.path) {
			if err := os.MkdirAll(d.path, 0o777); err != nil {
				slog.Info(fmt.Sprintf("Failed to create directory '%s'", d.path))
				continue
			}
		}
		if !writable(d.path) {
			slog.Debug(fmt.Sprintf("The '%s' is not writeable. Continuing...", d.path))
			continue
		}
		dest := filepath.Join(d.path, name)
		written = append(written, dest)
		if err := os.WriteFile(dest, content, 0o666); err != nil {
			slog.Debug(fmt.Sprintf("Failed to write the updated script: %s", err))
		}
	}
	if len(written) == 0 {
		return nil, nil
	}
	return written[0], nil
}

type bootstrapDir struct {
	path     string
	makedirs bool
}

// bootstrapDirs is update_bootstrap's search path: the
// deploy_scripts_search_path option, then cloud.deploy.d next to the
// configuration file and in config_dir (created when missing), each once.
func bootstrapDirs(ctx *execmod.Context) []bootstrapDir {
	confFile := optString(ctx.Opts, "conf_file")
	configDir := optString(ctx.Opts, "config_dir")
	if configDir == "" {
		configDir = filepath.Dir(confFile)
	}
	fromConf := filepath.Join(filepath.Dir(confFile), "cloud.deploy.d")
	fromSys := filepath.Join(configDir, "cloud.deploy.d")
	var dirs []bootstrapDir
	for _, e := range optStrings(ctx.Opts, "deploy_scripts_search_path") {
		dirs = append(dirs, bootstrapDir{e, e == fromConf || e == fromSys})
	}
	dirs = append(dirs, bootstrapDir{fromConf, true}, bootstrapDir{fromSys, true})
	seen := map[string]bool{}
	out := dirs[:0]
	for _, d := range dirs {
		if !seen[d.path] {
			seen[d.path] = true
			out = append(out, d)
		}
	}
	return out
}

// pyBasename is Python's os.path.basename: the text after the last slash.
func pyBasename(p string) string {
	return p[strings.LastIndex(p, "/")+1:]
}

// writable is os.access(p, W_OK).
func writable(p string) bool { return syscall.Access(p, 0x2) == nil }
