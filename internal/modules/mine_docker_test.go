package modules

import (
	"encoding/json"
	"os"
	"sort"
	"testing"

	"brine/internal/value"
	"brine/internal/yamlload"
)

// sortLists sorts every list in v by repr: Salt collects the host
// addresses in a set, so their order changes from run to run.
func sortLists(v any) {
	switch x := v.(type) {
	case *value.List:
		for _, it := range x.Items {
			sortLists(it)
		}
		sort.Slice(x.Items, func(i, j int) bool { return value.Repr(x.Items[i]) < value.Repr(x.Items[j]) })
	case *value.Map:
		for _, k := range x.Keys() {
			it, _ := x.Get(k)
			sortLists(it)
		}
	}
}

// TestMineGetDockerSalt replays Salt's answers for mine.get_docker on the
// local mine, filled with mine.send docker.ps (mine_function=config.get
// of docker.ps-shaped data from the minion config), as recorded in
// testdata/saltrec/mine_docker.golden.json.
func TestMineGetDockerSalt(t *testing.T) {
	const golden = "testdata/saltrec/mine_docker.golden.json"
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var rec saltRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	minion, err := yamlload.Load([]byte(rec.Minion), "minion")
	if err != nil {
		t.Fatal(err)
	}
	ctx := mineCtx(t, `{file_client: local}`, `{}`)
	ctx.Opts.Update(minion.(*value.Map))
	replaySaltRecord(t, ctx, golden, func(_ string, got, want any) (any, any) {
		sortLists(got)
		sortLists(want)
		return got, want
	})
}
