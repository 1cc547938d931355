package modules

import (
	"context"
	"errors"
	"testing"

	"brine/internal/system"
	"brine/internal/system/pkgmgr"
)

// TestPkgErrText: Salt lists apt-get's stderr under "errors" (recorded from
// Salt 3006: "E: Unable to locate package NAME"), not the command line.
func TestPkgErrText(t *testing.T) {
	for _, tc := range []struct {
		name           string
		stdout, stderr string
		want           string
	}{
		{"stderr", "", "E: Unable to locate package brine-nope\n", "E: Unable to locate package brine-nope"},
		{"several lines", "", "W: one\nE: two\n\n", "W: one\nE: two"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &system.Recorder{Reply: func(system.Cmd) (system.Result, bool) {
				return system.Result{Code: 100, Stdout: tc.stdout, Stderr: tc.stderr}, true
			}}
			_, err := pkgmgr.NewApt(rec).Install(context.Background(), pkgmgr.InstallRequest{Targets: []pkgmgr.Target{{Name: "brine-nope"}}})
			if err == nil {
				t.Fatal("no error")
			}
			if got := pkgErrText(err); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := pkgErrText(errors.New("plain")); got != "plain" {
		t.Errorf("plain error: %q", got)
	}
}
