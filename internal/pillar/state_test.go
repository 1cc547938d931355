package pillar_test

import (
	"testing"

	"brine/internal/pillar"
	"brine/internal/value"
)

func TestCallEnvs(t *testing.T) {
	tests := []struct {
		cfg                string
		saltenv, pillarenv any
		hasPillarenv       bool
		wantSalt, wantPenv string
	}{
		{`{}`, nil, nil, false, "", ""},
		{`{"pillarenv": "dev"}`, nil, nil, false, "", "dev"},
		{`{"pillarenv": "dev"}`, nil, "qa", true, "", "qa"},
		{`{"pillarenv_from_saltenv": true, "saltenv": "dev"}`, "dev", nil, false, "dev", "dev"},
		{`{"pillarenv_from_saltenv": true, "pillarenv": "dev"}`, "dev", "qa", true, "dev", "qa"},
	}
	for _, tt := range tests {
		v, _ := value.FromJSON([]byte(tt.cfg))
		s, p := pillar.CallEnvs(v.(*value.Map), tt.saltenv, tt.pillarenv, tt.hasPillarenv)
		if s != tt.wantSalt || p != tt.wantPenv {
			t.Errorf("%s %v %v: got %q %q, want %q %q", tt.cfg, tt.saltenv, tt.pillarenv, s, p, tt.wantSalt, tt.wantPenv)
		}
	}
}

func TestStatePillar(t *testing.T) {
	dir := tree(t, map[string]string{
		"b/top.sls": "base:\n  '*': [a]\n", "b/a.sls": "b: {x: 1}\n",
		"q/top.sls": "qa:\n  '*': [a]\n", "q/a.sls": "q: 1\n",
	})
	opts := testOpts(t, dir, `{"pillar_roots": {"base": ["{dir}/b"], "qa": ["{dir}/q"]}, "pillarenv": "base"}`)
	svc := pillar.Service{}
	prev, _ := svc.Compile(opts, nil, "minion", "", "base", nil, nil)
	req := pillar.StateRequest{Opts: opts, MinionID: "minion", Pillarenv: "base", Previous: prev}

	if got, _ := svc.StatePillar(req); got != prev {
		t.Error("no override and same pillarenv must reuse the in-memory pillar")
	}
	req.Override = value.MapOf("b", value.MapOf("y", int64(2)))
	got, err := svc.StatePillar(req)
	if err != nil {
		t.Fatal(err)
	}
	if !jsonEq(got, `{"b": {"x": 1, "y": 2}}`) {
		t.Errorf("override: %s", value.ToJSON(got, value.JSONOptions{}))
	}
	req.Override = nil
	req.Pillarenv = "qa"
	got, _ = svc.StatePillar(req)
	if !jsonEq(got, `{"b": {"x": 1}, "q": 1}`) {
		t.Errorf("pillarenv=qa: %s", value.ToJSON(got, value.JSONOptions{}))
	}
	req.Override = value.NewList(int64(1))
	if _, err := svc.StatePillar(req); err == nil {
		t.Error("non-mapping override accepted")
	}
	req.Override = "{c: 3}"
	req.Enc = "gpg"
	got, _ = svc.StatePillar(req)
	if v, _ := got.Get("c"); !value.Equal(v, int64(3)) {
		t.Errorf("string override with pillar_enc: %s", value.ToJSON(got, value.JSONOptions{}))
	}
}

// jsonEq compares v with a JSON text, key order included.
func jsonEq(v any, want string) bool {
	w, err := value.FromJSON([]byte(want))
	if err != nil {
		panic(err)
	}
	return value.ToJSON(v, value.JSONOptions{}) == value.ToJSON(w, value.JSONOptions{})
}

func TestFailureList(t *testing.T) {
	p := value.MapOf("a", 1, "_errors", value.NewList("one", "two"))
	if got := pillar.FailureList(p, false); !jsonEq(got, `["Pillar failed to render with the following messages:", "one", "two"]`) {
		t.Errorf("got %s", value.ToJSON(got, value.JSONOptions{}))
	}
	if pillar.FailureList(p, true) != nil || pillar.FailureList(value.MapOf("a", 1), false) != nil {
		t.Error("expected nil")
	}
}
