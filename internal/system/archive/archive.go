// Package archive reads tar (plain, gzip, bzip2, xz) and zip archives
// natively, lists them as salt/modules/archive.py's list_ does and
// extracts them; the archive execution functions and archive.extracted
// share it.
package archive

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"brine/internal/system/atomicfile"
)

// Member is one entry of an archive.
type Member struct {
	Name     string // cleaned relative path, directories without a slash
	RawName  string // the name as stored
	Kind     byte   // 'd', 'f' or 'l'
	Mode     os.FileMode
	Linkname string
	Data     []byte
}

// Contents is the parsed list of an archive, as archive.list_
// returns it in verbose mode.
type Contents struct {
	Members                     []Member
	Dirs, Files, Links          []string
	TopDirs, TopFiles, TopLinks []string
}

// DetectFormat guesses "tar", "zip" or "rar" from the name and the first bytes.
func DetectFormat(source string, data []byte) string {
	low := strings.ToLower(source)
	switch {
	case strings.HasSuffix(low, ".zip"):
		return "zip"
	case strings.Contains(low, ".tar") || strings.HasSuffix(low, ".tgz") || strings.HasSuffix(low, ".tbz2") ||
		strings.HasSuffix(low, ".tbz") || strings.HasSuffix(low, ".txz"):
		return "tar"
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		return "zip"
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}), bytes.HasPrefix(data, []byte("BZh")),
		bytes.HasPrefix(data, []byte{0xfd, '7', 'z', 'X', 'Z', 0}), len(data) > 262 && string(data[257:262]) == "ustar":
		return "tar"
	case strings.HasSuffix(low, ".rar"):
		return "rar"
	}
	return ""
}

// SafeRel cleans an archive member name; ok is false for names escaping
// the destination.
func SafeRel(name string) (string, bool) {
	c := path.Clean("/" + strings.TrimPrefix(name, "./"))
	c = strings.TrimPrefix(c, "/")
	if c == "" || c == "." {
		return "", false
	}
	if strings.HasPrefix(name, "/") || strings.Contains("/"+name+"/", "/../") {
		return "", false
	}
	return c, true
}

func tarReader(data []byte) (io.Reader, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		return gzip.NewReader(bytes.NewReader(data))
	case bytes.HasPrefix(data, []byte("BZh")):
		return bzip2.NewReader(bytes.NewReader(data)), nil
	case bytes.HasPrefix(data, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		if _, err := exec.LookPath("xz"); err != nil {
			return nil, errors.New("Failed to read from tar archive. If it is XZ-compressed, install xz-utils to attempt extraction.")
		}
		cmd := exec.Command("xz", "--decompress", "--stdout")
		cmd.Stdin = bytes.NewReader(data)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("xz: %w", err)
		}
		return bytes.NewReader(out), nil
	}
	return bytes.NewReader(data), nil
}

// Read parses an archive of format ("tar" or "zip").
func Read(format string, data []byte) (*Contents, error) {
	var ms []Member
	switch format {
	case "tar":
		r, err := tarReader(data)
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, errors.New("Failed to read from tar archive using Python's native tar file support. If archive is compressed using something other than gzip or bzip2, the 'options' argument may be required to pass the correct options to the tar command in order to extract the archive.")
			}
			name, ok := SafeRel(h.Name)
			if !ok {
				continue
			}
			m := Member{Name: name, RawName: strings.TrimSuffix(h.Name, "/"), Mode: os.FileMode(h.Mode).Perm(), Linkname: h.Linkname}
			switch h.Typeflag {
			case tar.TypeDir:
				m.Kind = 'd'
			case tar.TypeSymlink:
				m.Kind = 'l'
			case tar.TypeReg, '\x00': // NUL is the pre-POSIX regular-file flag
				m.Kind = 'f'
				m.Data, err = io.ReadAll(tr)
				if err != nil {
					return nil, err
				}
			default:
				continue
			}
			ms = append(ms, m)
		}
	case "zip":
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, fmt.Errorf("Unable to list contents of zip archive: %s", err)
		}
		for _, f := range zr.File {
			name, ok := SafeRel(f.Name)
			if !ok {
				continue
			}
			m := Member{Name: name, RawName: f.Name, Mode: f.Mode().Perm()}
			switch {
			case f.FileInfo().IsDir():
				m.Kind = 'd'
			case f.Mode()&os.ModeSymlink != 0:
				m.Kind = 'l'
				rc, err := f.Open()
				if err != nil {
					return nil, err
				}
				target, _ := io.ReadAll(rc)
				rc.Close()
				m.Linkname = string(target)
			default:
				m.Kind = 'f'
				rc, err := f.Open()
				if err != nil {
					return nil, err
				}
				m.Data, err = io.ReadAll(rc)
				rc.Close()
				if err != nil {
					return nil, err
				}
			}
			if m.Mode == 0 {
				m.Mode = 0o644
				if m.Kind == 'd' {
					m.Mode = 0o755
				}
			}
			ms = append(ms, m)
		}
	default:
		return nil, fmt.Errorf("Unsupported archive format '%s'", format)
	}
	ac := &Contents{Members: ms}
	seenTop := map[string]bool{}
	dirSet := map[string]bool{}
	for _, m := range ms {
		// Parents of every member are directories of the archive too.
		parts := strings.Split(m.Name, "/")
		for i := 1; i < len(parts); i++ {
			d := strings.Join(parts[:i], "/")
			if !dirSet[d] {
				dirSet[d] = true
				ac.Dirs = append(ac.Dirs, d+"/")
			}
		}
		switch m.Kind {
		case 'd':
			if !dirSet[m.Name] {
				dirSet[m.Name] = true
				ac.Dirs = append(ac.Dirs, m.Name+"/")
			}
		case 'f':
			ac.Files = append(ac.Files, m.Name)
		case 'l':
			ac.Links = append(ac.Links, m.Name)
		}
	}
	for _, m := range ms {
		top := strings.SplitN(m.Name, "/", 2)[0]
		if seenTop[top] {
			continue
		}
		seenTop[top] = true
		switch {
		case dirSet[top]:
			ac.TopDirs = append(ac.TopDirs, top+"/")
		case m.Kind == 'l':
			ac.TopLinks = append(ac.TopLinks, top)
		default:
			ac.TopFiles = append(ac.TopFiles, top)
		}
	}
	return ac, nil
}

// extract writes the members under dest; it returns the names, as the
// archive lists them.
func (ac *Contents) Extract(dest string, perms bool) ([]string, error) {
	var names []string
	for _, m := range ac.Members {
		p := filepath.Join(dest, m.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return names, err
		}
		switch m.Kind {
		case 'd':
			mode := os.FileMode(0o755)
			if perms && m.Mode != 0 {
				mode = m.Mode
			}
			if err := os.MkdirAll(p, mode); err != nil {
				return names, err
			}
			if perms {
				os.Chmod(p, mode)
			}
		case 'f':
			if st, err := os.Lstat(p); err == nil && !st.Mode().IsRegular() {
				os.RemoveAll(p)
			}
			mode := os.FileMode(0o644)
			if perms && m.Mode != 0 {
				mode = m.Mode
			}
			if err := atomicfile.Write(p, m.Data); err != nil {
				return names, err
			}
			os.Chmod(p, mode)
		case 'l':
			os.RemoveAll(p)
			if err := os.Symlink(m.Linkname, p); err != nil {
				return names, err
			}
		}
		names = append(names, m.RawName)
	}
	return names, nil
}
