package modules

import (
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"brine/internal/value"
	"brine/internal/yamlload"
)

// rarEntry is one member of a stored (uncompressed) RAR 4 archive; a nil
// data is a directory.
type rarEntry struct {
	name string
	data []byte
	mode uint32
}

// writeStoredRar writes a RAR 4 archive whose members are stored, the
// format every unrar reads: nothing on Debian creates RAR files.
func writeStoredRar(t *testing.T, path string, entries []rarEntry) {
	t.Helper()
	block := func(typ byte, flags uint16, body, data []byte) []byte {
		h := []byte{typ}
		h = binary.LittleEndian.AppendUint16(h, flags)
		h = binary.LittleEndian.AppendUint16(h, uint16(7+len(body)))
		h = append(h, body...)
		out := binary.LittleEndian.AppendUint16(nil, uint16(crc32.ChecksumIEEE(h)))
		return append(append(out, h...), data...)
	}
	out := []byte("Rar!\x1a\x07\x00")
	out = append(out, block(0x73, 0, make([]byte, 6), nil)...)
	for _, e := range entries {
		flags := uint16(0x8000) // a long block: file headers always are
		if e.data == nil {
			flags |= 0x00e0 // a directory
		}
		var b []byte
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.data))) // packed size
		b = binary.LittleEndian.AppendUint32(b, uint32(len(e.data))) // unpacked size
		b = append(b, 3)                                             // made on Unix
		b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(e.data))
		b = binary.LittleEndian.AppendUint32(b, 0x5a7b0000) // DOS time: 2025-03-27
		b = append(b, 20, 0x30)                             // version 2.0, stored
		b = binary.LittleEndian.AppendUint16(b, uint16(len(e.name)))
		b = binary.LittleEndian.AppendUint32(b, e.mode)
		b = append(b, e.name...)
		out = append(out, block(0x74, flags, b, e.data)...)
	}
	out = append(out, block(0x7b, 0x4000, nil, nil)...)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestArchiveUnrar extracts a RAR archive with the unrar on this machine
// and compares the output lines with what Salt 3006 returned for the same
// command lines with Debian's unrar-free (testdata/archive_unrar_salt.json,
// {dir} standing for the archive's directory).
func TestArchiveUnrar(t *testing.T) {
	bin, err := exec.LookPath("unrar")
	if err != nil {
		t.Skip("no unrar (Debian: apt-get install unrar-free)")
	}
	real, _ := filepath.EvalSymlinks(bin)
	isFree := filepath.Base(real) == "unrar-free"
	data, err := os.ReadFile("testdata/archive_unrar_salt.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Argv  []string `json:"argv"`
		Ret   []string `json:"ret"`
		Files []string `json:"files"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		dir := t.TempDir()
		writeStoredRar(t, filepath.Join(dir, "t.rar"), []rarEntry{
			{"d", nil, 0o40755}, {"d/a.txt", []byte("hello\n"), 0o100644}, {"b.txt", []byte("bee\n"), 0o100600}})
		// unrar-free reads its last argument as the destination only when
		// that is an existing directory.
		if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
			t.Fatal(err)
		}
		argv := make([]string, len(c.Argv)-1)
		for i, a := range c.Argv[1:] {
			argv[i] = strings.ReplaceAll(a, "{dir}", dir)
		}
		args, kwargs := yamlload.ParseInput(argv, nil)
		ctx := testContext()
		got, err := ctx.Call(c.Argv[0], args, kwargs)
		if err != nil {
			t.Errorf("%v: %v", c.Argv, err)
			continue
		}
		if isFree {
			want := value.NewList()
			for _, l := range c.Ret {
				l = strings.ReplaceAll(l, "{dir}", dir)
				want.Append(strings.ReplaceAll(l, "/usr/bin/unrar", bin))
			}
			if !value.Equal(got, want) {
				t.Errorf("%v:\n got %s\nwant %s", c.Argv, value.Repr(got), value.Repr(want))
			}
		}
		for _, f := range c.Files {
			b, err := os.ReadFile(filepath.Join(dir, "out", f))
			if err != nil || len(b) == 0 {
				t.Errorf("%v: %s not extracted: %v", c.Argv, f, err)
			}
		}
	}
}

// TestArchiveRarMissing checks Salt's errors when neither rar nor unrar
// is in $PATH.
func TestArchiveRarMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ctx := testContext()
	for _, tc := range []struct {
		fun  string
		args []any
		want string
	}{
		{"archive.rar", []any{"/tmp/x.rar", "/etc/hostname"}, "The 'rar' binary was not found in $PATH."},
		{"archive.unrar", []any{"/tmp/x.rar", "/tmp"}, `None of provided binaries(["'unrar'", "'rar'"]) were found in $PATH.`},
		{"archive.cmd_zip", []any{"/tmp/x.zip", "/etc/hostname"}, "The 'zip' binary was not found in $PATH."},
	} {
		_, err := ctx.Call(tc.fun, tc.args, value.NewMap(0))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.fun, err, tc.want)
			continue
		}
		if c, ok := err.(interface{ SaltExceptionClass() string }); !ok || c.SaltExceptionClass() != "salt.exceptions.CommandNotFoundError" {
			t.Errorf("%s: %T is not a CommandNotFoundError", tc.fun, err)
		}
	}
}

// TestArchiveListErrors checks archive.list's errors as Salt 3006 words
// them, with the cached archive's path as info: a RAR archive without the
// rar command (Salt lists RAR archives with rar or Python's rarfile),
// strip_components, an unknown format and a missing file.
func TestArchiveListErrors(t *testing.T) {
	dir := t.TempDir()
	rar := filepath.Join(dir, "t.rar")
	writeStoredRar(t, rar, []rarEntry{{"b.txt", []byte("bee\n"), 0o100644}})
	loc := func(p string) string { return " Additional info follows:\n\narchive location:\n    " + p }
	hasRar := false
	if _, err := exec.LookPath("rar"); err == nil {
		hasRar = true
	}
	for _, tc := range []struct {
		args []any
		kw   []any
		want string
	}{
		{[]any{rar}, nil, "rar command not available, is it installed?" + loc(rar)},
		{[]any{rar}, []any{"strip_components", int64(-1)}, "'strip_components' must be a positive integer." + loc(rar)},
		{[]any{rar}, []any{"archive_format", "7z"}, "Unsupported archive format '7z'." + loc(rar)},
		{[]any{dir + "/none.zip"}, nil, "Failed to list contents of " + dir + "/none.zip: [Errno 2] No such file or directory: '" +
			dir + "/none.zip'." + loc(dir+"/none.zip")},
	} {
		if hasRar && len(tc.kw) == 0 && tc.args[0] == rar {
			continue
		}
		_, err := testContext().Call("archive.list", tc.args, value.MapOf(tc.kw...))
		if err == nil || err.Error() != tc.want {
			t.Errorf("archive.list %v %v: %v\nwant %s", tc.args, tc.kw, err, tc.want)
		}
	}
}
