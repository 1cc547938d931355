package returners

// rawfile_json.go is salt/returners/rawfile_json.py: each return (or
// event) as one line of JSON appended to a file, under an exclusive lock.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"brine/internal/value"
)

func init() {
	Register(&Returner{
		Name:        "rawfile_json",
		Doc:         "Append each return (or event) as one line of JSON to rawfile_json.filename (default /var/log/salt/events).",
		Return:      rawfileReturn,
		EventReturn: rawfileEvents,
	})
}

func rawfileFilename(cfg Config, ret *value.Map) string {
	o := Options(cfg, "rawfile_json", ret, [][2]string{{"filename", "filename"}}, map[string]any{"filename": "/var/log/salt/events"})
	v, _ := o.Get("filename")
	return value.Str(v)
}

func rawfileReturn(cfg Config, ret *value.Map) error {
	return appendLines(rawfileFilename(cfg, ret), []string{pyJSON(ret)})
}

func rawfileEvents(cfg Config, events []*value.Map) error {
	if len(events) == 0 {
		return nil // Salt does not open the file for nothing
	}
	lines := make([]string, len(events))
	for i, ev := range events {
		lines[i] = pyJSON(ev)
	}
	return appendLines(rawfileFilename(cfg, value.NewMap(0)), lines)
}

// appendLines appends lines to name under an exclusive flock (Salt's
// flopen), in one write.
func appendLines(name string, lines []string) error {
	f, err := os.OpenFile(filepath.Clean(name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("could not write to rawdata_json file %s: %w", name, err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("could not write to rawdata_json file %s: %w", name, err)
	}
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		return fmt.Errorf("could not write to rawdata_json file %s: %w", name, err)
	}
	return nil
}
