package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// command is one brine subcommand: what it is for, how it is called, its
// flags, examples and what runs it. `--help`, `brine help`, the shell
// completion scripts and the man page are all made from this table, so
// they cannot disagree with what the commands accept.
type command struct {
	name     string
	usage    string      // the synopsis after "brine NAME"
	summary  string      // one line
	about    string      // a paragraph or two
	verbs    [][2]string // verbs and what they do (brine jobs)
	examples [][2]string // a command line and what it does
	// flags builds the command's flag set, bound to throwaway values.
	flags func() *pflag.FlagSet
	run   func(args []string, stdout, stderr io.Writer) int
	// args says what the positional arguments complete to: "functions"
	// (execution functions), "verbs", or "" (files).
	args string
}

// commands are brine's subcommands, in the order help lists them. The
// table is filled in init: its entries refer to the commands, which look
// it up for their help.
var commands []*command

func init() {
	commands = []*command{
		{
			name: "call", usage: "[options] FUNCTION [ARG ...] [KEY=VALUE ...]",
			summary: "run an execution function on this machine, as salt-call does",
			about: "brine call is used where salt-call is: the same minion config (-c DIR holding a minion file), " +
				"the same state and pillar trees, the same arguments (typed as salt-call types them) and the same output " +
				"and exit codes. With --local (or file_client: local) nothing talks to a master; on a minion of a brine " +
				"master, files and pillar come from the master. When a state run does not compile, stderr adds the " +
				"file, line and source of each problem.",
			examples: [][2]string{
				{"brine call --local -c examples/basic/conf state.apply test=True", "show what the highstate would change"},
				{"brine call --local state.sls web,db pillar='{\"port\": 8080}'", "apply two SLS with a pillar override"},
				{"brine call --local --out json pillar.items", "print this minion's pillar as JSON"},
				{"brine call --doc file.managed", "the documentation of a function"},
			},
			flags: func() *pflag.FlagSet { return newFlagSet(new(callFlags), io.Discard) },
			run:   Call, args: "functions",
		},
		{
			name: "check", usage: "[options] [SLS ...]",
			summary: "report every problem of a state tree without running it",
			about: "brine check renders and compiles the state tree as state.show_highstate and state.show_sls would: " +
				"the top file and every SLS it reaches (every SLS with --all, or the SLS given), and reports each problem " +
				"with its file, line, source and include chain: YAML and Jinja errors, missing includes and sources, " +
				"unknown state functions and arguments, requisites naming nothing, cycles, conflicting IDs, templates " +
				"that fail to render. Exit status 0 when clean, 2 on errors, 1 on warnings only with --strict.",
			examples: [][2]string{
				{"brine check -c /etc/salt", "check the highstate of this minion"},
				{"brine check --all --format json", "every SLS of every environment, for a CI job"},
				{"brine check --grains-file grains.yaml --id web1 web", "check SLS web as minion web1 would see it"},
			},
			flags: func() *pflag.FlagSet { return checkFlagSet(new(checkFlags)) },
			run:   Check,
		},
		{
			name: "graph", usage: "[options] [SLS ...]",
			summary: "show the requisite graph and predicted run order, without running",
			about: "brine graph compiles the low chunks a run would execute, resolves every requisite with the " +
				"runtime's rules and prints the graph as text (run order with __run_num__), Graphviz dot or JSON.",
			examples: [][2]string{
				{"brine graph -c /etc/salt", "the highstate's run order"},
				{"brine graph --format dot web | dot -Tsvg > web.svg", "draw SLS web"},
			},
			flags: func() *pflag.FlagSet { return graphFlagSet(new(graphFlags)) },
			run:   Graph,
		},
		{
			name: "master", usage: "[options]",
			summary: "run the master daemon (NATS server, keys, jobs, files, pillar)",
			about: "brine master runs (or connects to) the NATS server minions use, admits their keys, publishes " +
				"jobs, keeps job records and returns in JetStream, and serves each minion its files and its own pillar.",
			examples: [][2]string{
				{"brine master -c /etc/brine/master", "run the master"},
				{"brine master -c /etc/brine/master --write-nats-auth", "write the auth file an external nats-server includes"},
			},
			flags: func() *pflag.FlagSet { return masterFlagSet(new(masterFlags)) },
			run:   Master,
		},
		{
			name: "minion", usage: "[options]",
			summary: "run the minion daemon",
			about: "brine minion connects to its master with its own key (asking for acceptance until the master " +
				"accepts it), runs each job it is sent, as brine call runs a function, and returns the result.",
			examples: [][2]string{
				{"brine minion -c /etc/brine/minion", "run the minion"},
			},
			flags: func() *pflag.FlagSet { return minionFlagSet(new(minionFlags)) },
			run:   Minion,
		},
		{
			name: "key", usage: "[options]",
			summary: "manage minion keys, as salt-key does",
			about: "brine key lists, accepts, rejects and deletes minion keys in the master's pki_dir, and prints " +
				"fingerprints (sha256 of the key file, in salt-key's colon form).",
			examples: [][2]string{
				{"brine key -c /etc/brine/master -L", "list keys by state"},
				{"brine key -c /etc/brine/master -f web1", "the fingerprint of web1's key"},
				{"brine key -c /etc/brine/master -a 'web*' -y", "accept the pending keys of the web minions"},
			},
			flags: func() *pflag.FlagSet { return keyFlagSet(new(keyFlags)) },
			run:   Key,
		},
		{
			name: "run", usage: "[options] TARGET FUNCTION [ARG ...] [KEY=VALUE ...]",
			summary: "run a function on the minions a target selects, as salt does",
			about: "brine run publishes a job to the minions TARGET selects (glob by default) and prints each " +
				"return as it arrives. After --timeout it asks the minions that have not returned whether they " +
				"still run the job, and waits for those that do.",
			examples: [][2]string{
				{"brine run -c /etc/brine/master '*' test.ping", "ping every accepted minion"},
				{"brine run -G roles:web state.apply test=True", "a dry run on the web minions"},
				{"brine run -b 10% '*' state.apply", "apply in batches of a tenth of the fleet"},
			},
			flags: func() *pflag.FlagSet { return runFlagSet(new(runFlags)) },
			run:   Run, args: "functions",
		},
		{
			name: "cp", usage: "[options] TARGET SOURCE... DEST",
			summary: "copy files from here to the minions a target selects, as salt-cp does",
			about: "brine cp sends local files to the minions TARGET selects (glob by default): in the job itself " +
				"(cp.recv, files only), or with --chunked in chunks of salt_cp_chunk_size bytes, gzip-compressed unless " +
				"-n, one job per chunk (cp.recv_chunked), which also copies directories recursively, empty ones " +
				"included, and keeps each file's mode. It prints, per minion, each destination path and whether it was written.",
			examples: [][2]string{
				{"brine cp -c /etc/brine/master 'web*' motd /etc/motd", "one file to the web minions"},
				{"brine cp -C -L web1,web2 conf.d /etc/app/", "a directory, chunked, to two minions"},
			},
			flags: func() *pflag.FlagSet { return cpFlagSet(new(cpFlags)) },
			run:   Cp,
		},
		{
			name: "ssh", usage: "[options] TARGET FUNCTION [ARG ...] [KEY=VALUE ...]",
			summary: "run a function on roster hosts over SSH, without minions, as salt-ssh does",
			about: "brine ssh reads the master config and the roster (roster_file, else CONFIG_DIR/roster), logs in " +
				"to the hosts TARGET selects, sends them this brine binary once (cached under thin_dir by content hash), " +
				"collects their grains, compiles their pillar here, runs brine call --local there with the file roots " +
				"the run needs and prints each host's return as salt-ssh does. A host that fails is reported; the " +
				"others go on. With -r the arguments are a shell command.",
			examples: [][2]string{
				{"brine ssh -c /etc/salt '*' state.apply test=True", "a dry run on every roster host"},
				{"brine ssh -L web1,web2 pillar.items --out json", "two hosts' pillar as compiled here"},
				{"brine ssh -i -r 'web*' 'uptime'", "a raw shell command, accepting new host keys"},
			},
			flags: func() *pflag.FlagSet { return sshFlagSet(new(sshFlags)) },
			run:   SSH, args: "functions",
		},
		{
			name: "jobs", usage: "[options] list | lookup JID",
			summary: "list jobs and look up their returns, as salt-run jobs.* does",
			verbs: [][2]string{
				{"list", "the jobs the master keeps (keep_jobs hours)"},
				{"lookup JID", "the returns of one job"},
			},
			examples: [][2]string{
				{"brine jobs -c /etc/brine/master list", "the recent jobs"},
				{"brine jobs -c /etc/brine/master lookup 20261121234316561543 --out json", "one job's returns"},
			},
			flags: func() *pflag.FlagSet { return jobsFlagSet(new(jobsFlags)) },
			run:   Jobs, args: "verbs",
		},
		{
			name: "run-runner", usage: "[options] FUNCTION [ARG ...] [KEY=VALUE ...]",
			summary: "run a runner function on the master, as salt-run does",
			about: "brine run-runner runs a runner function on the master with the master's options: manage.* " +
				"(which minions answer), jobs.* (the job store), fileserver.* (the master's file_roots), salt.cmd, " +
				"and state.orchestrate, a state run of the master's file_roots whose salt.state, salt.function, " +
				"salt.runner and salt.wheel steps drive the minions. Arguments are typed as brine run types them.",
			examples: [][2]string{
				{"brine run-runner -c /etc/brine/master manage.status", "which minions answer"},
				{"brine run-runner jobs.lookup_jid 20261121234316561543", "one job's returns"},
				{"brine run-runner state.orchestrate deploy test=True", "a dry run of the orchestration deploy.sls"},
			},
			flags: func() *pflag.FlagSet { return runnerFlagSet(new(runnerFlags)) },
			run:   RunRunner,
		},
		{
			name: "event", usage: "[options] listen",
			summary: "print the master's events as they are fired, as salt-run state.event does",
			verbs:   [][2]string{{"listen", "print each event: its tag, then its data"}},
			examples: [][2]string{
				{"brine event -c /etc/brine/master listen", "every event, data as indented JSON"},
				{"brine event -c /etc/brine/master listen --tag 'salt/job/*/ret/*' --out json", "returns, one JSON object a line"},
			},
			flags: func() *pflag.FlagSet { return eventFlagSet(new(eventFlags)) },
			run:   Event, args: "verbs",
		},
	}
}

// lookupCommand returns the command called name.
func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// helpText is the help of command c, whose flags are fs.
func helpText(c *command, fs *pflag.FlagSet) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: brine %s %s\n\n", c.name, c.usage)
	fmt.Fprintf(&b, "brine %s: %s.\n", c.name, c.summary)
	if c.about != "" {
		fmt.Fprintf(&b, "\n%s\n", wrap(c.about, 76, ""))
	}
	if len(c.verbs) > 0 {
		b.WriteString("\nVerbs:\n")
		for _, v := range c.verbs {
			fmt.Fprintf(&b, "  %-12s %s\n", v[0], v[1])
		}
	}
	b.WriteString("\nOptions:\n")
	b.WriteString(fs.FlagUsages())
	if len(c.examples) > 0 {
		b.WriteString("\nExamples:\n")
		for _, e := range c.examples {
			fmt.Fprintf(&b, "  %s\n      %s\n", e[0], e[1])
		}
	}
	return b.String()
}

// wrap folds text at width columns, each line prefixed by indent.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		switch {
		case n == 0:
			b.WriteString(indent)
			n = len(indent)
		case n+1+len(w) > width:
			b.WriteString("\n" + indent)
			n = len(indent)
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

// parseCommand parses the arguments of command name. On --help it prints
// the command's help on stdout; on an unknown option or a bad value, one
// line saying so and the help on stderr (exit status 2). ok is false when
// the command should stop with status rc.
func parseCommand(name string, fs *pflag.FlagSet, args []string, stdout, stderr io.Writer) (rc int, ok bool) {
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if err == nil {
		return 0, true
	}
	c := lookupCommand(name)
	if errors.Is(err, pflag.ErrHelp) {
		if c != nil {
			fmt.Fprint(stdout, helpText(c, fs))
		}
		return exitOK, false
	}
	fmt.Fprintf(stderr, "Error: %v\n", err)
	if c != nil {
		fmt.Fprintf(stderr, "\n%s", helpText(c, fs))
	}
	return exitUsage, false
}

// mainUsage is what `brine`, `brine help` and `brine --help` print.
func mainUsage() string {
	var b strings.Builder
	b.WriteString("Usage: brine COMMAND [options] [ARG ...]\n\n")
	b.WriteString("brine runs Salt 3006 state trees, unchanged, from one static binary.\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	b.WriteString("\nAlso: brine help COMMAND, brine completion bash|zsh|fish, brine man, brine --version, brine --versions-report.\n")
	b.WriteString("Run \"brine COMMAND --help\" for a command's options and examples.\n")
	return b.String()
}

// Help runs `brine help [COMMAND]`.
func Help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, mainUsage())
		return exitOK
	}
	c := lookupCommand(args[0])
	if c == nil {
		fmt.Fprintf(stderr, "brine help: unknown command %q\n\n%s", args[0], mainUsage())
		return exitUsage
	}
	fmt.Fprint(stdout, helpText(c, c.flags()))
	return exitOK
}
