package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"brine/internal/config"
	"brine/internal/value"
)

// writeCallProc records a state function run by `brine call` in the
// minion's proc directory (cachedir/proc, one file per job named by its
// jid), as salt-call does: the state module finds concurrent runs there
// (state.running, the queue option). The returned function removes the
// file. Other functions are not recorded (nothing looks for them).
func writeCallProc(cfg *config.Config, fun, jid string, stderr io.Writer) func() {
	if !strings.HasPrefix(fun, "state.") || cfg.Cachedir() == "" {
		return func() {}
	}
	dir := filepath.Join(cfg.Cachedir(), "proc")
	path := filepath.Join(dir, jid)
	data := value.MapOf("fun", fun, "pid", int64(os.Getpid()), "jid", jid, "tgt", "salt-call")
	tmp := filepath.Join(dir, "."+jid+".tmp")
	err := os.MkdirAll(dir, 0o700)
	if err == nil {
		err = os.WriteFile(tmp, []byte(value.ToJSON(data, value.JSONOptions{Indent: -1})), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		fmt.Fprintf(stderr, "Cannot write to process directory. Do you have permissions to write to %s ?\n", path)
		return func() {}
	}
	return func() { _ = os.Remove(path) }
}
