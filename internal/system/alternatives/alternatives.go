// Package alternatives is the update-alternatives handling of
// salt/modules/alternatives.py that the alternatives execution functions
// and states share. Under a system root (tests) the commands get --altdir
// and --admindir inside it.
package alternatives

import (
	"os"
	"path/filepath"
	"strings"
)

// Tool runs update-alternatives for the machine under Root ("" for /).
type Tool struct{ Root string }

// Argv is the command line of update-alternatives with args.
func (t Tool) Argv(args ...string) []string {
	argv := []string{"update-alternatives"}
	if t.Root != "" {
		argv = append(argv, "--altdir", t.path("/etc/alternatives"), "--admindir", t.path("/var/lib/dpkg/alternatives"))
	}
	return append(argv, args...)
}

func (t Tool) path(p string) string { return filepath.Join("/", t.Root, p) }

// Current is show_current: the target of /etc/alternatives/<name>.
func (t Tool) Current(name string) (string, error) {
	return os.Readlink(t.path(filepath.Join("/etc/alternatives", name)))
}

// QueryLink is the master link in the first block of
// `update-alternatives --query` output.
func QueryLink(stdout string) (string, bool) {
	first, _, _ := strings.Cut(stdout, "\n\n")
	for _, line := range strings.Split(first, "\n") {
		if strings.HasPrefix(line, "Link:") {
			_, v, _ := strings.Cut(line, ":")
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// DisplayHas is check_exists over `--display` output: a line starts
// with path.
func DisplayHas(stdout, path string) bool {
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, path) {
			return true
		}
	}
	return false
}
