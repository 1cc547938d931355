package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"brine/internal/fleet/client"
	"brine/internal/fleet/keys"
	"brine/internal/fleet/master"
	"brine/internal/match"
	"brine/internal/output"
	"brine/internal/value"
)

// keyFlags are salt-key's options that brine supports.
type keyFlags struct {
	fleetFlags
	listAll              bool
	list                 string
	accept, reject, del  string
	acceptAll, rejectAll bool
	deleteAll            bool
	finger               string
	fingerAll            bool
	yes                  bool
	includeRejected      bool
	includeAccepted      bool
	out                  string
}

// stdin is where `brine key` reads confirmations (tests replace it).
var stdin io.Reader = os.Stdin

// keyFlagSet defines brine key's flags on f.
func keyFlagSet(f *keyFlags) *pflag.FlagSet {
	fs := newFleetFlagSet("brine key")
	f.addConfig(fs)
	// salt-key's -l lists keys; the log level has only its long name.
	fs.StringVar(&f.logLevel, "log-level", "", "console log level")
	fs.BoolVarP(&f.listAll, "list-all", "L", false, "list all keys")
	fs.StringVarP(&f.list, "list", "l", "", "list keys of one state: pre/un/unaccepted, acc/accepted, rej/rejected, den/denied, all")
	fs.StringVarP(&f.accept, "accept", "a", "", "accept the pending keys matching this glob")
	fs.BoolVarP(&f.acceptAll, "accept-all", "A", false, "accept all pending keys")
	fs.StringVarP(&f.reject, "reject", "r", "", "reject the pending keys matching this glob")
	fs.BoolVarP(&f.rejectAll, "reject-all", "R", false, "reject all pending keys")
	fs.StringVarP(&f.del, "delete", "d", "", "delete the keys matching this glob")
	fs.BoolVarP(&f.deleteAll, "delete-all", "D", false, "delete all keys")
	fs.StringVarP(&f.finger, "finger", "f", "", "print the fingerprints of the keys matching this glob")
	fs.BoolVarP(&f.fingerAll, "finger-all", "F", false, "print all fingerprints")
	fs.BoolVarP(&f.yes, "yes", "y", false, "answer yes to all questions")
	fs.BoolVar(&f.includeRejected, "include-rejected", false, "accept or reject rejected/accepted keys too")
	fs.BoolVar(&f.includeAccepted, "include-accepted", false, "reject accepted keys too")
	fs.StringVar(&f.out, "out", "", "outputter for listings (json, yaml, ...)")
	return fs
}

// Key runs `brine key`, which mirrors salt-key.
func Key(args []string, stdout, stderr io.Writer) int {
	var f keyFlags
	fs := keyFlagSet(&f)
	if rc, ok := parseCommand("key", fs, args, stdout, stderr); !ok {
		return rc
	}
	cfg, err := loadMaster(&f.fleetFlags, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	store, err := keys.OpenStore(cfg.String("pki_dir"))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitGeneric
	}
	k := &keyCmd{f: &f, store: store, stdout: stdout, stderr: stderr, opts: cfg.Opts(), in: bufio.NewReader(stdin)}
	switch {
	case f.accept != "" || f.acceptAll:
		from := []keys.State{keys.Pending}
		if f.includeRejected {
			from = append(from, keys.Rejected)
		}
		return k.move(pick(f.accept, f.acceptAll), from, keys.Accepted, "accepted")
	case f.reject != "" || f.rejectAll:
		from := []keys.State{keys.Pending}
		if f.includeAccepted {
			from = append(from, keys.Accepted)
		}
		return k.move(pick(f.reject, f.rejectAll), from, keys.Rejected, "rejected")
	case f.del != "" || f.deleteAll:
		return k.delete(pick(f.del, f.deleteAll))
	case f.finger != "" || f.fingerAll:
		return k.fingers(pick(f.finger, f.fingerAll))
	case f.list != "":
		return k.listStates(f.list)
	}
	return k.listStates("all")
}

func pick(glob string, all bool) string {
	if all {
		return "*"
	}
	return glob
}

type keyCmd struct {
	f      *keyFlags
	store  *keys.Store
	opts   *value.Map
	stdout io.Writer
	stderr io.Writer
	in     *bufio.Reader
}

var stateAliases = map[string][]keys.State{
	"pre": {keys.Pending}, "un": {keys.Pending}, "unaccepted": {keys.Pending},
	"acc": {keys.Accepted}, "accepted": {keys.Accepted},
	"rej": {keys.Rejected}, "rejected": {keys.Rejected},
	"den": {keys.Denied}, "denied": {keys.Denied},
	"all": keys.States,
}

// listStates prints the keys of the named states, as salt-key -L / -l.
func (k *keyCmd) listStates(name string) int {
	states, ok := stateAliases[strings.ToLower(name)]
	if !ok {
		fmt.Fprintf(k.stderr, "brine key: error: invalid key state %q\n", name)
		return exitUsage
	}
	data := value.NewMap(len(states))
	for _, st := range states {
		ids, err := k.store.List(st)
		if err != nil {
			fmt.Fprintln(k.stderr, err)
			return exitGeneric
		}
		l := value.NewList()
		for _, id := range ids {
			l.Append(id)
		}
		data.Set(string(st), l)
	}
	if k.f.out != "" {
		fmt.Fprint(k.stdout, output.Default.Display(data, k.f.out, &output.Options{Opts: k.opts}))
		return exitOK
	}
	for _, st := range states {
		fmt.Fprintf(k.stdout, "%s:\n", st.Title())
		v, _ := data.Get(string(st))
		for _, id := range v.(*value.List).Items {
			fmt.Fprintln(k.stdout, id)
		}
	}
	return exitOK
}

// matching returns, per state, the ids in states matching glob.
func (k *keyCmd) matching(glob string, states []keys.State) (map[keys.State][]string, int) {
	out := map[keys.State][]string{}
	n := 0
	for _, st := range states {
		ids, err := k.store.List(st)
		if err != nil {
			continue
		}
		for _, id := range ids {
			if match.Fnmatch(id, glob) {
				out[st] = append(out[st], id)
				n++
			}
		}
	}
	return out, n
}

// confirm shows the keys about to change and asks, unless -y.
func (k *keyCmd) confirm(what string, sel map[keys.State][]string, states []keys.State) bool {
	fmt.Fprintf(k.stdout, "The following keys are going to be %s:\n", what)
	for _, st := range states {
		if ids := sel[st]; len(ids) > 0 {
			fmt.Fprintf(k.stdout, "%s:\n", st.Title())
			for _, id := range ids {
				fmt.Fprintln(k.stdout, id)
			}
		}
	}
	if k.f.yes {
		return true
	}
	fmt.Fprint(k.stdout, "Proceed? [n/Y] ")
	line, _ := k.in.ReadString('\n')
	line = strings.TrimSpace(strings.ToLower(line))
	return line == "" || line == "y" || line == "yes"
}

func (k *keyCmd) notifyMaster() {
	c, err := client.Dial(k.opts)
	if err != nil {
		return // the master picks changes up by itself within seconds
	}
	defer c.Close()
	_ = c.ReloadKeys()
}

func (k *keyCmd) move(glob string, from []keys.State, to keys.State, verb string) int {
	sel, n := k.matching(glob, from)
	if n == 0 {
		fmt.Fprintf(k.stderr, "The key glob '%s' does not match any unaccepted keys.\n", glob)
		return exitGeneric
	}
	if !k.confirm(verb, sel, from) {
		return exitOK
	}
	rc := exitOK
	for _, st := range from {
		for _, id := range sel[st] {
			if err := k.store.Move(id, st, to); err != nil {
				fmt.Fprintln(k.stderr, err)
				rc = exitGeneric
				continue
			}
			fmt.Fprintf(k.stdout, "Key for minion %s %s.\n", id, verb)
		}
	}
	k.notifyMaster()
	return rc
}

func (k *keyCmd) delete(glob string) int {
	sel, n := k.matching(glob, keys.States)
	if n == 0 {
		fmt.Fprintf(k.stderr, "The key glob '%s' does not match any accepted, unaccepted or rejected keys.\n", glob)
		return exitGeneric
	}
	if !k.confirm("deleted", sel, keys.States) {
		return exitOK
	}
	done := map[string]bool{}
	rc := exitOK
	for _, st := range keys.States {
		for _, id := range sel[st] {
			if done[id] {
				continue
			}
			done[id] = true
			if err := k.store.Delete(id); err != nil {
				fmt.Fprintln(k.stderr, err)
				rc = exitGeneric
				continue
			}
			fmt.Fprintf(k.stdout, "Key for minion %s deleted.\n", id)
		}
	}
	k.notifyMaster()
	return rc
}

// fingers prints fingerprints as salt-key -f / -F: the hash_type digest
// of each key file, byte for byte (`sha256sum FILE` prints the same
// digest without the colons). -F also lists the master's own under
// "Local Keys": master.pub and the CA whose fingerprint minions set as
// master_finger.
func (k *keyCmd) fingers(glob string) int {
	hashType, _ := k.opts.Get("hash_type")
	ht, _ := hashType.(string)
	if k.f.fingerAll {
		fmt.Fprintln(k.stdout, "Local Keys:")
		pub := keys.PubPath(master.KeyPath(k.opts))
		if fp, err := keys.FileFinger(pub, ht); err == nil {
			fmt.Fprintf(k.stdout, "%s:  %s\n", filepath.Base(pub), fp)
		} else if !errors.Is(err, fs.ErrNotExist) {
			fmt.Fprintln(k.stderr, err)
		}
		if ca := master.CAFile(k.opts); ca != "" {
			if fp, err := master.CAFinger(ca, ht); err == nil {
				fmt.Fprintf(k.stdout, "%s:  %s\n", filepath.Base(ca), fp)
			} else {
				fmt.Fprintln(k.stderr, err)
			}
		}
	}
	sel, n := k.matching(glob, keys.States)
	if n == 0 && !k.f.fingerAll {
		fmt.Fprintf(k.stderr, "The key glob '%s' does not match any keys.\n", glob)
		return exitGeneric
	}
	rc := exitOK
	for _, st := range keys.States {
		if len(sel[st]) == 0 {
			continue
		}
		fmt.Fprintf(k.stdout, "%s:\n", st.Title())
		for _, id := range sel[st] {
			fp, err := k.store.Finger(st, id, ht)
			if err != nil {
				fmt.Fprintln(k.stderr, err)
				rc = exitGeneric
				continue
			}
			fmt.Fprintf(k.stdout, "%s:  %s\n", id, fp)
		}
	}
	return rc
}
