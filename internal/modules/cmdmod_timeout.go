package modules

// cmdmod_timeout.go is the timeout handling of cmd's _run
// (salt/utils/timed_subprocess.py): a command that has not exited and
// closed its output within timeout seconds is killed, and its result says
// so in place of the output.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"

	"brine/internal/value"
)

// timedOutText is the message of Salt's TimedProcTimeoutError, which _run
// returns as the stdout of a command that ran out of time: the command as
// Popen got it (the string for a shell, else the argument list's repr,
// never redacted) and the timeout as given.
func timedOutText(r *cmdReq, argv []string) string {
	cmd := r.cmd
	if !r.pythonShell || r.argv != nil {
		cmd = value.Repr(strList(argv))
	}
	return fmt.Sprintf("%s : Timed out after %s seconds", cmd, value.Str(r.timeoutArg))
}

// timedPipes are the stdout and stderr pipes of a command with a timeout.
// brine reads them itself (exec.Cmd would wait for a killed shell's
// children that still hold them), so that, as in Salt, the wait for the
// output ends with the timeout. A nil *timedPipes does nothing.
type timedPipes struct {
	read, write []*os.File
	bufs        []*bytes.Buffer
	done        chan struct{}
}

// attachTimedPipes sets cmd's stdout and stderr (one pipe when stderr is
// redirected) to pipes read into out and errOut.
func attachTimedPipes(cmd *exec.Cmd, out, errOut *bytes.Buffer, redirect bool) (*timedPipes, error) {
	p := &timedPipes{done: make(chan struct{})}
	add := func(buf *bytes.Buffer) (*os.File, error) {
		r, w, err := os.Pipe()
		if err != nil {
			p.abort()
			return nil, err
		}
		p.read, p.write, p.bufs = append(p.read, r), append(p.write, w), append(p.bufs, buf)
		return w, nil
	}
	w, err := add(out)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w
	if !redirect {
		if cmd.Stderr, err = add(errOut); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// abort closes both ends (the command did not start).
func (p *timedPipes) abort() {
	if p == nil {
		return
	}
	for _, f := range append(p.read, p.write...) {
		f.Close()
	}
}

// started closes the child's ends in this process and starts the readers.
func (p *timedPipes) started() {
	if p == nil {
		return
	}
	var wg sync.WaitGroup
	for i, f := range p.read {
		p.write[i].Close()
		wg.Add(1)
		go func(f *os.File, buf *bytes.Buffer) {
			defer wg.Done()
			io.Copy(buf, f)
		}(f, p.bufs[i])
	}
	go func() {
		wg.Wait()
		close(p.done)
	}()
}

// wait waits for the end of the output; false when ctx ended first (the
// read ends are closed then and the buffers must not be read).
func (p *timedPipes) wait(ctx context.Context) bool {
	if p == nil {
		return true
	}
	select {
	case <-p.done:
		return true
	case <-ctx.Done():
		for _, f := range p.read {
			f.Close()
		}
		return false
	}
}
