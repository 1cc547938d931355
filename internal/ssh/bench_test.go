package ssh_test

import (
	"context"
	"os"
	"testing"
	"time"

	_ "brine/internal/builtin"

	"brine/internal/config"
	"brine/internal/ssh"
	"brine/internal/ssh/sshdtest"
)

// BenchmarkStateApply applies the small formula of sshdtest on five
// targets: cold (no brine on the targets: the binary is sent) and warm.
// ns/op is the wall time of the whole run; the other figures are per
// target: connecting and logging in, sending the binary, the run
// command (bundle upload and brine call), commands run (each one round
// trip or more) and bytes sent.
func BenchmarkStateApply(b *testing.B) {
	ids := []string{"t1", "t2", "t3", "t4", "t5"}
	s := sshdtest.NewSite(b, ids...)
	cfg, err := config.LoadMaster(s.ConfigDir, nil)
	if err != nil {
		b.Fatal(err)
	}
	o := &ssh.Options{Opts: cfg.Opts(), ConfigDir: s.ConfigDir, Tgt: "*", Fun: "state.apply"}
	targets, err := ssh.Targets(o)
	if err != nil || len(targets) != len(ids) {
		b.Fatalf("targets: %v %v", targets, err)
	}
	run := func(b *testing.B) (sum ssh.Stats) {
		err := ssh.RunTargets(context.Background(), o, targets, func(r *ssh.Result) {
			if r.Failed || r.Retcode != 0 {
				b.Fatalf("%s: %v", r.ID, r.Return)
			}
			st := r.Stats
			sum.Connect += st.Connect
			sum.Transfer += st.Transfer
			sum.Remote += st.Remote
			sum.RoundTrips += st.RoundTrips
			sum.BytesOut += st.BytesOut
		})
		if err != nil {
			b.Fatal(err)
		}
		return sum
	}
	report := func(b *testing.B, sum ssh.Stats) {
		n := float64(b.N * len(ids))
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / n }
		b.ReportMetric(ms(sum.Connect), "connect-ms/target")
		b.ReportMetric(ms(sum.Transfer), "binary-ms/target")
		b.ReportMetric(ms(sum.Remote), "run-ms/target")
		b.ReportMetric(float64(sum.RoundTrips)/n, "commands/target")
		b.ReportMetric(float64(sum.BytesOut)/n/1e6, "MB-sent/target")
	}
	b.Run("cold", func(b *testing.B) {
		var sum ssh.Stats
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			for _, id := range ids {
				if err := os.RemoveAll(s.Hosts[id].Thin); err != nil {
					b.Fatal(err)
				}
				_ = os.RemoveAll(s.Hosts[id].Root)
			}
			b.StartTimer()
			st := run(b)
			sum.Connect += st.Connect
			sum.Transfer += st.Transfer
			sum.Remote += st.Remote
			sum.RoundTrips += st.RoundTrips
			sum.BytesOut += st.BytesOut
		}
		report(b, sum)
	})
	b.Run("warm", func(b *testing.B) {
		run(b) // the binary and files are in place
		b.ResetTimer()
		var sum ssh.Stats
		for i := 0; i < b.N; i++ {
			st := run(b)
			sum.Connect += st.Connect
			sum.Transfer += st.Transfer
			sum.Remote += st.Remote
			sum.RoundTrips += st.RoundTrips
			sum.BytesOut += st.BytesOut
		}
		report(b, sum)
	})
}
