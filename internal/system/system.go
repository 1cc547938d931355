// Package system is the layer below execution and state modules that
// touches the machine: package managers (pkgmgr), init systems (svcmgr)
// and the user database (usermgr). Every command goes through one small
// Runner, so tests can check command lines with a Recorder and real runs
// use Exec.
package system

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Cmd is one command to run: no shell is involved.
type Cmd struct {
	Name  string
	Args  []string
	Env   []string // extra KEY=VALUE entries added to the environment
	Stdin string
}

// String returns the command line, arguments quoted where needed.
func (c Cmd) String() string {
	parts := make([]string, 0, len(c.Args)+1)
	for _, s := range append([]string{c.Name}, c.Args...) {
		if s == "" || strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;") {
			s = "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// Result is the outcome of a command that ran.
type Result struct {
	Stdout, Stderr string
	Code           int
}

// Runner runs commands. The error is for commands that could not run at
// all (not found, not executable); a non-zero exit is a Result.
type Runner interface {
	Run(ctx context.Context, c Cmd) (Result, error)
}

// Exec runs commands on this machine.
type Exec struct{}

// Run runs c and waits for it. It logs as Salt's cmdmod does for the
// argument lists its pkg and service modules run: the command at info,
// its output at trace and its return code at debug (a non-zero exit is
// not an error here: the caller decides, as with Salt's ignore_retcode).
func (Exec) Run(ctx context.Context, c Cmd) (Result, error) {
	if logEnabled(slog.LevelInfo) {
		dir, _ := os.Getwd()
		slog.Info(fmt.Sprintf("Executing command %s in directory '%s'", c.Name, dir))
		if logEnabled(slog.LevelDebug) {
			slog.Debug("Command line: " + c.String())
		}
	}
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	if len(c.Env) > 0 {
		cmd.Env = append(cmd.Environ(), c.Env...)
	}
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := Result{Stdout: out.String(), Stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		res.Code = ee.ExitCode()
	default:
		if logEnabled(slog.LevelDebug) {
			slog.Debug(fmt.Sprintf("Command '%s' could not run: %v", c.Name, err))
		}
		return res, fmt.Errorf("running %s: %w", c.Name, err)
	}
	if logEnabled(levelTrace) {
		if res.Stdout != "" {
			slog.Log(ctx, levelTrace, "stdout: "+strings.TrimRight(res.Stdout, "\n"))
		}
		if res.Stderr != "" {
			slog.Log(ctx, levelTrace, "stderr: "+strings.TrimRight(res.Stderr, "\n"))
		}
	}
	if logEnabled(slog.LevelDebug) {
		slog.Debug(fmt.Sprintf("retcode: %d", res.Code))
	}
	return res, nil
}

// levelTrace is Salt's trace level among slog's.
const levelTrace = slog.LevelDebug - 4

func logEnabled(l slog.Level) bool { return slog.Default().Enabled(context.Background(), l) }

// Recorder is a Runner for tests: it records every command and answers
// from Reply (a zero Result when Reply is nil or returns ok=false).
type Recorder struct {
	mu    sync.Mutex
	Cmds  []Cmd
	Reply func(c Cmd) (Result, bool)
}

// Run records c and returns the reply for it.
func (r *Recorder) Run(_ context.Context, c Cmd) (Result, error) {
	r.mu.Lock()
	r.Cmds = append(r.Cmds, c)
	r.mu.Unlock()
	if r.Reply != nil {
		if res, ok := r.Reply(c); ok {
			return res, nil
		}
	}
	return Result{}, nil
}

// Lines returns the recorded command lines.
func (r *Recorder) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.Cmds))
	for i, c := range r.Cmds {
		out[i] = c.String()
	}
	return out
}

// CommandError is a command that exited non-zero where success was needed.
type CommandError struct {
	Cmd    Cmd
	Result Result
}

// Error describes the command and how it failed.
func (e *CommandError) Error() string {
	msg := strings.TrimSpace(e.Result.Stderr)
	if msg == "" {
		msg = strings.TrimSpace(e.Result.Stdout)
	}
	return fmt.Sprintf("%s failed with exit code %d: %s", e.Cmd.String(), e.Result.Code, msg)
}

// Must runs c and turns a non-zero exit into a *CommandError.
func Must(ctx context.Context, r Runner, c Cmd) (Result, error) {
	res, err := r.Run(ctx, c)
	if err != nil {
		return res, err
	}
	if res.Code != 0 {
		return res, &CommandError{Cmd: c, Result: res}
	}
	return res, nil
}
