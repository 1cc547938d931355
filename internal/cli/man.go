package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"brine/internal/version"
)

// Man runs `brine man`: the brine(1) manual page, in roff, made from the
// command table (`brine man | man -l -` reads it; `make install-man`
// installs it).
func Man(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "Usage: brine man\n\nPrint the brine(1) manual page (roff). Read it with: brine man | man -l -")
		return exitUsage
	}
	fmt.Fprint(stdout, manPage())
	return exitOK
}

// roff escapes text for a roff line: backslashes, hyphens of options and
// a leading dot or quote.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// manPage is the brine(1) page.
func manPage() string {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH BRINE 1 \"\" \"%s\" \"User Commands\"\n", roff(version.Read().Version))
	b.WriteString(".SH NAME\nbrine \\- Salt 3006's state system in one static binary\n")
	b.WriteString(".SH SYNOPSIS\n")
	for _, c := range commands {
		fmt.Fprintf(&b, ".B brine %s\n%s\n.br\n", c.name, roff(c.usage))
	}
	b.WriteString(".B brine help\n[COMMAND]\n.br\n.B brine completion\nbash|zsh|fish\n.br\n.B brine man\n.br\n.B brine\n\\-\\-version | \\-\\-versions\\-report\n")
	b.WriteString(".SH DESCRIPTION\n")
	b.WriteString(roff("brine takes Salt users' state trees (SLS files rendered through jinja|yaml, pillar with top files and matchers, includes, extends, requisites) unchanged and gives the same results as Salt 3006: the same high data, low chunks, order, return data, output and exit codes. brine call is used where salt-call is; the fleet commands (master, minion, key, run, jobs) do the work of Salt's master, minion, salt-key, salt and salt-run jobs over NATS.") + "\n")
	b.WriteString(".SH COMMANDS\n")
	for _, c := range commands {
		fmt.Fprintf(&b, ".SS \"brine %s\"\n%s.\n", c.name, roff(c.summary))
		if c.about != "" {
			fmt.Fprintf(&b, ".PP\n%s\n", roff(c.about))
		}
		if len(c.verbs) > 0 {
			b.WriteString(".PP\nVerbs:\n")
			for _, v := range c.verbs {
				fmt.Fprintf(&b, ".TP\n.B %s\n%s\n", roff(v[0]), roff(v[1]))
			}
		}
		b.WriteString(".PP\nOptions:\n")
		c.flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			b.WriteString(".TP\n")
			name := `\fB\-\-` + roff(f.Name) + `\fR`
			if f.Shorthand != "" {
				name = `\fB\-` + roff(f.Shorthand) + `\fR, ` + name
			}
			if f.Value.Type() != "bool" {
				name += ` \fI` + roff(strings.ToUpper(f.Value.Type())) + `\fR`
			}
			b.WriteString(name + "\n" + roff(f.Usage))
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
				b.WriteString(" (default: " + roff(f.DefValue) + ")")
			}
			b.WriteString("\n")
		})
		if len(c.examples) > 0 {
			b.WriteString(".PP\nExamples:\n")
			for _, e := range c.examples {
				fmt.Fprintf(&b, ".PP\n.RS 4\n.nf\n%s\n.fi\n.RE\n%s.\n", roff(e[0]), roff(e[1]))
			}
		}
	}
	b.WriteString(".SH EXIT STATUS\n")
	b.WriteString(roff("brine call exits as salt-call does: 0 on success, 1 when the function or a state failed (the function's own code with --retcode-passthrough), 2 on a usage error, 255 for an unknown function. brine check: 0 when clean, 1 on warnings only with --strict, 2 on errors. brine run: 0 when every minion returned success, 1 otherwise, 2 when no minion matched.") + "\n")
	b.WriteString(".SH SEE ALSO\n.BR salt\\-call (1),\n.BR salt (1),\n.BR salt\\-key (1),\n.BR salt\\-master (1),\n.BR salt\\-minion (1)\n")
	return b.String()
}
