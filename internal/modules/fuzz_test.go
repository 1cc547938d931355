package modules

import (
	"strings"
	"testing"

	"brine/internal/yamlload"
)

// pureFuncs are execution functions without side effects on the machine,
// safe to call with any arguments.
var pureFuncs = []string{
	"test.echo", "test.arg", "test.kwarg", "test.ping", "test.true", "test.false", "test.outputter",
	"pillar.get", "pillar.item", "pillar.items", "pillar.raw", "pillar.fetch", "pillar.keys", "pillar.ls",
	"pillar.obfuscate", "pillar.filter_by", "pillar.file_exists",
	"grains.get", "grains.item", "grains.items", "grains.ls", "grains.has_value", "grains.equals",
	"grains.fetch", "grains.filter_by",
	"defaults.merge", "defaults.deepcopy", "defaults.update",
	"config.get", "config.option", "config.items",
	"random.rand_int", "random.seed", "random.get_str",
	"network.in_subnet", "environ.get", "environ.has_value", "environ.item",
	"sys.doc", "sys.list_functions", "sys.list_modules", "mine.valid",
}

// FuzzCallArgs types command-line words as salt-call does and binds them to
// side-effect-free functions: a bad argument is an error, never a panic.
func FuzzCallArgs(f *testing.F) {
	for _, s := range []string{
		"app:port", "a:b:c default=x delimiter=:", "key=val merge=True",
		"'{\"a\": [1, 2]}' '{\"b\": 3}' merge_lists=True",
		"1 99 seed=7", "seed=[1] range=0", "length=-3", "lookup_dict={} grain=os base=Deb*",
		"cidr=10.0.0.0/33", "start=5 end=1", "x y z w v u t s r q p",
	} {
		f.Add(s)
	}
	ctx := testContext()
	f.Fuzz(func(t *testing.T, line string) {
		words := strings.Fields(line)
		if len(words) > 12 {
			return
		}
		for _, fun := range pureFuncs {
			args, kwargs := yamlload.ParseInput(words, nil)
			_, _ = ctx.Call(fun, args, kwargs)
		}
	})
}
