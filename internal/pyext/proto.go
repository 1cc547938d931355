package pyext

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"brine/internal/value"
)

// maxFrame bounds one message (a runaway worker must not make brine
// allocate without limit).
const maxFrame = 1 << 30

// writeFrame sends msg as one frame: a 4-byte big-endian length, then the
// JSON text (Python's json.dumps rules, values JSON cannot hold as repr).
func writeFrame(w io.Writer, msg *value.Map) error {
	body := value.ToJSON(msg, value.JSONOptions{Indent: -1, ItemSep: ",", KeySep: ":"})
	buf := make([]byte, 4+len(body))
	binary.BigEndian.PutUint32(buf, uint32(len(body)))
	copy(buf[4:], body)
	_, err := w.Write(buf)
	return err
}

// readFrame reads one frame and decodes it, keeping key order, int and
// float apart and big integers exact.
func readFrame(r *bufio.Reader) (*value.Map, error) {
	var head [4]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(head[:])
	if n > maxFrame {
		return nil, fmt.Errorf("frame of %d bytes is too large", n)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	v, err := value.FromJSON(body)
	if err != nil {
		return nil, fmt.Errorf("bad frame from the python worker: %w", err)
	}
	m, ok := v.(*value.Map)
	if !ok {
		return nil, fmt.Errorf("bad frame from the python worker: not an object")
	}
	return m, nil
}
