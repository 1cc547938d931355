package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDaemonLogFile: the master daemon writes log_file in
// Salt's logfile format at log_level_logfile, whatever the console level
// (brine minion sets up its logging the same way).
func TestDaemonLogFile(t *testing.T) {
	dir := t.TempDir()
	mlog := filepath.Join(dir, "master.log")
	c := newCluster(t, "log_file: "+mlog+"\nlog_level_logfile: info\n")
	c.startMaster()
	c.startMinion("lf1", "", true)
	c.acceptAll("lf1")
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(mlog)
		text := string(data)
		if strings.Contains(text, "[INFO    ]") && strings.Contains(text, "master fingerprint") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("master log_file %s:\n%s", mlog, text)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
