package pkgmgr

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"brine/internal/system"
)

var debVersions = [][2]string{
	{"1.0", "1.0"}, {"1.0", "1.1"}, {"1.0-1", "1.0-2"}, {"1:1.0", "2.0"}, {"1.0~rc1", "1.0"},
	{"1.0~rc1", "1.0~rc2"}, {"1.0~~", "1.0~"}, {"1.0+b1", "1.0"}, {"1.0a", "1.0"}, {"1.0a", "1.0+"},
	{"1.0.1", "1.0a"}, {"2.30-1", "2.30-1+deb12u1"}, {"0:1.2", "1.2"}, {"1.2-0", "1.2"},
	{"10", "9"}, {"1.002", "1.2"}, {"1.0-1ubuntu1", "1.0-1"}, {"7.88.1-10+deb12u5", "7.88.1-10+deb12u12"},
	{"1:9.2p1-2", "1:9.2p1-2+deb12u3"}, {"1.0-", "1.0"}, {"a", "b"}, {"1.0.", "1.0"}, {"1.0-a", "1.0-1"},
	{"2.36-9+deb12u4", "2.36-9+deb12u10"}, {"1.0~", "1.0"}, {"1~~a", "1~~"}, {"3.0.11-1~deb12u2", "3.0.11-1"},
}

// TestCompareDebianAgainstDpkg checks the native ordering against
// `dpkg --compare-versions` on this machine.
func TestCompareDebianAgainstDpkg(t *testing.T) {
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("dpkg is not installed here: cannot cross-check the Debian ordering")
	}
	for _, p := range debVersions {
		got := sign(CompareDebian(p[0], p[1]))
		want := 0
		for _, op := range []struct {
			op string
			v  int
		}{{"lt", -1}, {"eq", 0}, {"gt", 1}} {
			if exec.Command("dpkg", "--compare-versions", p[0], op.op, p[1]).Run() == nil {
				want = op.v
				break
			}
		}
		if got != want {
			t.Errorf("CompareDebian(%q, %q) = %d, dpkg says %d", p[0], p[1], got, want)
		}
	}
}

func TestCompareRPM(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0", "1.0", 0}, {"1.0", "2.0", -1}, {"2.0.1", "2.0", 1}, {"1.0a", "1.0", 1},
		{"1.0~rc1", "1.0", -1}, {"1.0^git1", "1.0", 1}, {"1.0^git1", "1.0.1", -1},
		{"1:1.0-1", "2.0-1", 1}, {"1.0-1.el9", "1.0-2.el9", -1}, {"1.0-1", "1.0", 0},
		{"5.5p1", "5.5p10", -1}, {"1.0010", "1.9", 1}, {"xyz", "xyz", 0}, {"1.a", "1.1", -1},
		{"2.5-2.fc36", "2.5-10.fc36", -1}, {"1.0~rc1", "1.0~rc2", -1}, {"1.0~rc1^1", "1.0~rc1", 1},
	}
	for _, tc := range tests {
		if got := sign(CompareRPM(tc.a, tc.b)); got != tc.want {
			t.Errorf("CompareRPM(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := sign(CompareRPM(tc.b, tc.a)); got != -tc.want {
			t.Errorf("CompareRPM(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
		}
	}
}

func TestCompareAPK(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"1.0-r0", "1.0-r1", -1}, {"1.2.3-r0", "1.2.10-r0", -1}, {"1.0_rc1-r0", "1.0-r0", -1},
		{"1.0_p1-r0", "1.0-r0", 1}, {"1.0a-r0", "1.0-r0", 1}, {"1.0_alpha1", "1.0_beta1", -1},
		{"2.0", "2.0", 0}, {"3.1.4-r5", "3.1.4-r5", 0},
	}
	for _, tc := range tests {
		if got := sign(CompareAPK(tc.a, tc.b)); got != tc.want {
			t.Errorf("CompareAPK(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestAptListInstalledReal compares the native read of dpkg's database
// with dpkg-query on this machine.
func TestAptListInstalledReal(t *testing.T) {
	if _, err := exec.LookPath("dpkg-query"); err != nil {
		t.Skip("dpkg-query is not installed here")
	}
	a := NewApt(system.Exec{})
	got, err := a.ListInstalled(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("dpkg-query", "--showformat", "${Status} ${Package} ${Version} ${Architecture}\n", "-W").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := Installed{}
	arch, _ := exec.Command("dpkg", "--print-architecture").Output()
	native := strings.TrimSpace(string(arch))
	for _, line := range strings.Split(string(out), "\n") {
		c := strings.Fields(line)
		if len(c) < 6 {
			continue
		}
		name := c[3]
		if c[5] != "all" && native == "amd64" && c[5] != native {
			name += ":" + c[5]
		}
		if (strings.Contains(c[0], "install") || strings.Contains(c[0], "hold")) && strings.Contains(c[2], "installed") {
			want.add(name, c[4])
		} else if strings.Contains(c[0], "purge") && c[2] == "installed" {
			want.add(name, c[4])
		}
	}
	if len(got) != len(want) {
		t.Errorf("native list has %d packages, dpkg-query %d", len(got), len(want))
	}
	for n, v := range want {
		if strings.Join(got[n], ",") != strings.Join(v, ",") {
			t.Errorf("%s: native %v, dpkg-query %v", n, got[n], v)
		}
	}
	if v := got["dpkg"]; len(v) != 1 {
		t.Errorf("dpkg itself not listed: %v", v)
	}
}

// TestAptCandidatesReal asks apt-cache about an installed package and a
// name that does not exist.
func TestAptCandidatesReal(t *testing.T) {
	if _, err := exec.LookPath("apt-cache"); err != nil {
		t.Skip("apt-cache is not installed here")
	}
	a := NewApt(system.Exec{})
	inst, _ := a.ListInstalled(context.Background())
	c, err := a.Candidates(context.Background(), []string{"dpkg", "brine-no-such-package"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if c["brine-no-such-package"] != "" {
		t.Errorf("candidate of a missing package = %q", c["brine-no-such-package"])
	}
	// Without package lists the candidate is the installed version.
	if c["dpkg"] == "" || a.Compare(c["dpkg"], inst["dpkg"][0]) < 0 {
		t.Errorf("dpkg candidate %q, installed %v", c["dpkg"], inst["dpkg"])
	}
}

func TestCommandLines(t *testing.T) {
	ctx := context.Background()
	req := InstallRequest{Targets: []Target{{Name: "nginx"}, {Name: "curl", Version: "7.88.1-10"}}, FromRepo: "bookworm-backports", NoRecommends: true}
	tests := []struct {
		name string
		run  func(r system.Runner) error
		want []string
	}{
		{"apt install", func(r system.Runner) error { _, err := NewApt(r).Install(ctx, req); return err },
			[]string{"apt-get -q -y -o DPkg::Options::=--force-confold -o DPkg::Options::=--force-confdef --no-install-recommends -t bookworm-backports install nginx curl=7.88.1-10"}},
		{"apt purge", func(r system.Runner) error { _, err := NewApt(r).Remove(ctx, []string{"a", "b"}, true); return err },
			[]string{"apt-get -q -y purge a b"}},
		{"apt hold", func(r system.Runner) error { _, err := NewApt(r).Hold(ctx, []string{"a"}, true); return err },
			[]string{"dpkg --set-selections"}},
		{"apt candidates", func(r system.Runner) error { _, err := NewApt(r).Candidates(ctx, []string{"a", "b"}, ""); return err },
			[]string{"apt-cache -q policy a b"}},
		{"dnf install", func(r system.Runner) error {
			_, err := (&Dnf{Runner: r, Bin: "dnf"}).Install(ctx, InstallRequest{Targets: []Target{{Name: "httpd"}, {Name: "vim", Version: "2:9.0-1.el9"}}})
			return err
		}, []string{"dnf -y install httpd vim-9.0-1.el9"}},
		{"dnf remove", func(r system.Runner) error {
			_, err := (&Dnf{Runner: r, Bin: "dnf"}).Remove(ctx, []string{"a"}, true)
			return err
		},
			[]string{"dnf -y remove a"}},
		{"dnf hold", func(r system.Runner) error {
			_, err := (&Dnf{Runner: r, Bin: "yum"}).Hold(ctx, []string{"a"}, true)
			return err
		},
			[]string{"yum versionlock add a"}},
		{"apk add", func(r system.Runner) error {
			_, err := NewApk(r).Install(ctx, InstallRequest{Targets: []Target{{Name: "curl", Version: "8.5.0-r0"}, {Name: "git"}}})
			return err
		}, []string{"apk add curl=8.5.0-r0 git"}},
		{"apk del", func(r system.Runner) error { _, err := NewApk(r).Remove(ctx, []string{"a", "b"}, false); return err },
			[]string{"apk del a b"}},
	}
	for _, tc := range tests {
		rec := &system.Recorder{}
		if err := tc.run(rec); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := rec.Lines(); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

func TestAptParsesPolicy(t *testing.T) {
	rec := &system.Recorder{Reply: func(system.Cmd) (system.Result, bool) {
		return system.Result{Stdout: "nginx:\n  Installed: (none)\n  Candidate: 1.22.1-9\n  Version table:\n     1.22.1-9 500\nfoo:\n  Installed: 1.0\n  Candidate: (none)\n"}, true
	}}
	c, err := NewApt(rec).Candidates(context.Background(), []string{"nginx", "foo", "bar"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if c["nginx"] != "1.22.1-9" || c["foo"] != "" || c["bar"] != "" {
		t.Errorf("candidates = %v", c)
	}
}

func TestFailureIsCommandError(t *testing.T) {
	rec := &system.Recorder{Reply: func(system.Cmd) (system.Result, bool) {
		return system.Result{Code: 100, Stderr: "E: Unable to locate package nope\n"}, true
	}}
	_, err := NewApt(rec).Install(context.Background(), InstallRequest{Targets: []Target{{Name: "nope"}}})
	if err == nil || !strings.Contains(err.Error(), "Unable to locate package nope") {
		t.Errorf("err = %v", err)
	}
}

func TestSatisfies(t *testing.T) {
	for _, tc := range []struct {
		op   string
		cmp  int
		want bool
	}{
		{"==", 0, true}, {"==", 1, false},
		{"!=", 0, false}, {"!=", -1, true},
		{"<", -1, true}, {"<", 0, false},
		{"<=", 0, true}, {"<=", 1, false},
		{">", 1, true}, {">", 0, false},
		{">=", 0, true}, {">=", -1, false},
		{"=>", 0, false}, // not an operator
	} {
		if got := Satisfies(tc.op, tc.cmp); got != tc.want {
			t.Errorf("Satisfies(%q, %d) = %v", tc.op, tc.cmp, got)
		}
	}
}
