package pyext

import (
	"os"
	"os/exec"
	"syscall"
)

// blockingPipes connects cmd's stdin and stdout to two pipes whose
// descriptors stay in blocking mode, and returns brine's ends. Reads and
// writes on them are plain system calls on the calling thread: a round
// trip to the worker then costs two wake-ups of the processes involved,
// without the runtime's poller in between (os.Pipe's descriptors are
// non-blocking and every wait goes through the poller, about 20 µs more
// per call on a busy 2-core machine).
func blockingPipes(cmd *exec.Cmd) (stdin, stdout *os.File, err error) {
	var in, out [2]int
	if err := syscall.Pipe2(in[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, err
	}
	if err := syscall.Pipe2(out[:], syscall.O_CLOEXEC); err != nil {
		_ = syscall.Close(in[0])
		_ = syscall.Close(in[1])
		return nil, nil, err
	}
	cmd.Stdin = os.NewFile(uintptr(in[0]), "python-stdin")
	cmd.Stdout = os.NewFile(uintptr(out[1]), "python-stdout")
	return os.NewFile(uintptr(in[1]), "worker-stdin"), os.NewFile(uintptr(out[0]), "worker-stdout"), nil
}

// closeChildEnds closes brine's copies of the child's ends of the pipes
// once the child has started (else brine never sees the worker's end of
// file).
func closeChildEnds(cmd *exec.Cmd) {
	for _, f := range []any{cmd.Stdin, cmd.Stdout} {
		if c, ok := f.(*os.File); ok {
			_ = c.Close()
		}
	}
}
