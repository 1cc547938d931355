package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"brine/internal/execmod"
	"brine/internal/output"
)

// completeCommand is the hidden command the completion scripts call for
// what changes with the binary: the execution functions.
const completeCommand = "__complete"

// Completion runs `brine completion bash|zsh|fish`: a completion script
// for that shell, made from the command table.
func Completion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "Usage: brine completion bash|zsh|fish\n\nPrint a shell completion script. For example:\n  brine completion bash > /etc/bash_completion.d/brine\n  brine completion zsh > \"${fpath[1]}/_brine\"\n  brine completion fish > ~/.config/fish/completions/brine.fish")
		return exitUsage
	}
	switch args[0] {
	case "bash":
		fmt.Fprint(stdout, bashCompletion())
	case "zsh":
		fmt.Fprint(stdout, "#compdef brine\n# zsh completion for brine, made by `brine completion zsh`: it uses the\n# bash completion through zsh's bashcompinit.\nautoload -U +X bashcompinit && bashcompinit\n"+bashFunction()+"complete -F _brine brine\n")
	case "fish":
		fmt.Fprint(stdout, fishCompletion())
	default:
		fmt.Fprintf(stderr, "brine completion: unknown shell %q (bash, zsh or fish)\n", args[0])
		return exitUsage
	}
	return exitOK
}

// complete prints what `brine __complete functions` completes to.
func complete(args []string, stdout io.Writer) int {
	if len(args) == 1 && args[0] == "functions" {
		for _, n := range execmod.Default.Names() {
			fmt.Fprintln(stdout, n)
		}
		return exitOK
	}
	return exitUsage
}

// dirFlags and fileFlags take a directory or a file; their values
// complete to paths.
var (
	dirFlags  = map[string]bool{"config-dir": true, "file-root": true, "pillar-root": true, "cachedir": true}
	fileFlags = map[string]bool{"out-file": true, "grains-file": true}
)

// flagValues returns the fixed values flag name of command cmd takes,
// when it has some.
func flagValues(cmd, name string) []string {
	switch name {
	case "out":
		return output.Default.Names()
	case "log-level", "l":
		return []string{"all", "garbage", "trace", "debug", "profile", "info", "warning", "error", "critical", "quiet"}
	case "log-format":
		return []string{"text", "json"}
	case "state-output":
		return []string{"full", "terse", "mixed", "changes", "full_id", "terse_id", "mixed_id", "changes_id"}
	case "state-verbose":
		return []string{"True", "False"}
	case "format":
		if cmd == "graph" {
			return []string{"text", "dot", "json"}
		}
		return []string{"text", "json"}
	}
	return nil
}

// visibleFlags lists a command's flags that help shows.
func visibleFlags(c *command) []*pflag.Flag {
	var out []*pflag.Flag
	c.flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			out = append(out, f)
		}
	})
	return out
}

func commandNames() string {
	names := make([]string, 0, len(commands)+3)
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(append(names, "help", "completion", "man"), " ")
}

// bashFunction is the _brine completion function.
func bashFunction() string {
	var b strings.Builder
	b.WriteString(`_brine() {
    local cur prev cmd
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    cmd="${COMP_WORDS[1]}"
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=( $(compgen -W "` + commandNames() + ` --help --version --versions-report" -- "$cur") )
        return
    fi
    case "$cmd" in
        help) COMPREPLY=( $(compgen -W "` + commandNames() + `" -- "$cur") ); return ;;
        completion) COMPREPLY=( $(compgen -W "bash zsh fish" -- "$cur") ); return ;;
    esac
`)
	b.WriteString("    case \"$cmd\" in\n")
	for _, c := range commands {
		var words, dirs, files []string
		values := map[string][]string{}
		for _, f := range visibleFlags(c) {
			opts := []string{"--" + f.Name}
			if f.Shorthand != "" {
				opts = append(opts, "-"+f.Shorthand)
			}
			words = append(words, opts...)
			if f.Value.Type() == "bool" {
				continue
			}
			switch {
			case dirFlags[f.Name]:
				dirs = append(dirs, opts...)
			case fileFlags[f.Name]:
				files = append(files, opts...)
			case flagValues(c.name, f.Name) != nil:
				for _, o := range opts {
					values[o] = flagValues(c.name, f.Name)
				}
			}
		}
		fmt.Fprintf(&b, "        %s)\n            case \"$prev\" in\n", c.name)
		if len(dirs) > 0 {
			fmt.Fprintf(&b, "                %s) COMPREPLY=( $(compgen -d -- \"$cur\") ); return ;;\n", strings.Join(dirs, "|"))
		}
		if len(files) > 0 {
			fmt.Fprintf(&b, "                %s) COMPREPLY=( $(compgen -f -- \"$cur\") ); return ;;\n", strings.Join(files, "|"))
		}
		opts := make([]string, 0, len(values))
		for o := range values {
			opts = append(opts, o)
		}
		sort.Strings(opts)
		for _, o := range opts {
			fmt.Fprintf(&b, "                %s) COMPREPLY=( $(compgen -W \"%s\" -- \"$cur\") ); return ;;\n", o, strings.Join(values[o], " "))
		}
		b.WriteString("            esac\n")
		fmt.Fprintf(&b, "            if [[ \"$cur\" == -* ]]; then\n                COMPREPLY=( $(compgen -W \"%s\" -- \"$cur\") )\n", strings.Join(words, " "))
		switch c.args {
		case "functions":
			b.WriteString("            else\n                COMPREPLY=( $(compgen -W \"$(brine " + completeCommand + " functions 2>/dev/null)\" -- \"$cur\") )\n")
		case "verbs":
			var verbs []string
			for _, v := range c.verbs {
				verbs = append(verbs, strings.Fields(v[0])[0])
			}
			fmt.Fprintf(&b, "            else\n                COMPREPLY=( $(compgen -W \"%s\" -- \"$cur\") )\n", strings.Join(verbs, " "))
		default:
			b.WriteString("            else\n                COMPREPLY=( $(compgen -f -- \"$cur\") )\n")
		}
		b.WriteString("            fi\n            ;;\n")
	}
	b.WriteString("    esac\n}\n")
	return b.String()
}

// bashCompletion is the bash completion script.
func bashCompletion() string {
	return "# bash completion for brine, made by `brine completion bash`.\n" + bashFunction() + "complete -F _brine brine\n"
}

// fishCompletion is the fish completion script.
func fishCompletion() string {
	var b strings.Builder
	b.WriteString("# fish completion for brine, made by `brine completion fish`.\ncomplete -c brine -f\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "complete -c brine -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	b.WriteString("complete -c brine -n __fish_use_subcommand -a help -d 'help on a command'\n")
	b.WriteString("complete -c brine -n __fish_use_subcommand -a completion -d 'a shell completion script'\n")
	b.WriteString("complete -c brine -n __fish_use_subcommand -a man -d 'the manual page'\n")
	for _, c := range commands {
		cond := "'__fish_seen_subcommand_from " + c.name + "'"
		for _, f := range visibleFlags(c) {
			fmt.Fprintf(&b, "complete -c brine -n %s -l %s", cond, f.Name)
			if f.Shorthand != "" {
				fmt.Fprintf(&b, " -s %s", f.Shorthand)
			}
			if f.Value.Type() != "bool" {
				switch {
				case dirFlags[f.Name]:
					b.WriteString(" -r -a '(__fish_complete_directories)'")
				case fileFlags[f.Name]:
					b.WriteString(" -r -F")
				case flagValues(c.name, f.Name) != nil:
					fmt.Fprintf(&b, " -r -a %s", fishQuote(strings.Join(flagValues(c.name, f.Name), " ")))
				default:
					b.WriteString(" -r")
				}
			}
			fmt.Fprintf(&b, " -d %s\n", fishQuote(firstSentence(f.Usage)))
		}
		switch c.args {
		case "functions":
			fmt.Fprintf(&b, "complete -c brine -n %s -a '(brine %s functions 2>/dev/null)'\n", cond, completeCommand)
		case "verbs":
			for _, v := range c.verbs {
				fmt.Fprintf(&b, "complete -c brine -n %s -a %s -d %s\n", cond, strings.Fields(v[0])[0], fishQuote(v[1]))
			}
		}
	}
	return b.String()
}

func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i]
	}
	return s
}
