package minion

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"brine/internal/fleet/proto"
)

func TestJournal(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	// Not proto.NewJID: it never goes back in time within a process, and
	// jobs of other tests (or runs, with -count) moved it on.
	fresh := func(ago time.Duration) string {
		t := now.Add(-ago).UTC()
		return t.Format("20060102150405") + fmt.Sprintf("%06d", t.Nanosecond()/1000)
	}
	old, a, b, c, d := fresh(time.Hour), fresh(3*time.Second), fresh(2*time.Second), fresh(time.Second), fresh(0)
	// A previous run: old expired, a done, b taken, c pending, a torn line.
	if err := os.MkdirAll(filepath.Join(dir, pendingDir), 0o700); err != nil {
		t.Fatal(err)
	}
	journal := old + " taken\n" + a + " taken\n" + b + " taken\n" + a + " done\n" + c + " taken\n" + "2026"
	if err := os.WriteFile(filepath.Join(dir, journalFile), []byte(journal), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, pendingDir, c+".json"), []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	j, err := openJournal(dir, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		jid   string
		first bool
	}{{a, false}, {b, false}, {c, false}, {d, true}, {d, false}} {
		first, err := j.take(tc.jid)
		if err != nil || first != tc.first {
			t.Errorf("take(%s) = %v, %v; want %v", tc.jid, first, err, tc.first)
		}
	}
	if _, kept := j.taken[old]; kept {
		t.Errorf("an entry older than twice the window was kept")
	}
	// d was taken by this run: only b was left unfinished by the last one
	if got := j.interrupted(); !reflect.DeepEqual(got, []string{b}) {
		t.Errorf("interrupted = %v", got)
	}
	if got := j.pendingJIDs(); !reflect.DeepEqual(got, []string{c}) {
		t.Errorf("pending = %v", got)
	}
	if err := j.done(c, true); err != nil {
		t.Fatal(err)
	}
	if got := j.pendingJIDs(); len(got) != 0 {
		t.Errorf("pending after done = %v", got)
	}
	// Reopened, the journal keeps what it learnt.
	j2, err := openJournal(dir, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(j2.taken, j.taken) {
		t.Errorf("reopened: %v, want %v", j2.taken, j.taken)
	}
	// In memory only, the same rules hold.
	m, _ := openJournal("", time.Minute)
	if first, _ := m.take(d); !first {
		t.Error("memory journal: first take refused")
	}
	if first, _ := m.take(d); first {
		t.Error("memory journal: second take accepted")
	}
}

// TestFitReturn: a return larger than the server takes becomes a failed
// return saying so; others pass unchanged.
func TestFitReturn(t *testing.T) {
	ret := proto.Return{V: proto.Version, JID: "20261125180000000000", ID: "m1", Fun: "cmd.run", Return: proto.ValueJSON{V: strings.Repeat("x", 20000)}, Retcode: 0, Success: true}
	data, _ := json.Marshal(ret)
	if got := fitReturn(data, 1<<20); string(got) != string(data) {
		t.Error("a small return was changed")
	}
	var small proto.Return
	if err := json.Unmarshal(fitReturn(data, 8192), &small); err != nil {
		t.Fatal(err)
	}
	msg, _ := small.Return.V.(string)
	if small.Retcode != 1 || small.Success || small.JID != ret.JID || small.ID != "m1" || !strings.Contains(msg, "more than the master accepts (max_payload 8192 bytes)") {
		t.Errorf("%+v", small)
	}
}
