package states

// file_mknod.go is file.mknod and file.decode of salt/states/file.py.

import (
	"crypto/md5"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"strings"
	"syscall"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "file.mknod", Run: fileMknod,
		Doc: "Create a special file similar to the 'nix mknod command.",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("ntype"), p("major", int64(0)), p("minor", int64(0)),
			p("user", nil), p("group", nil), p("mode", "0600")}})
	statemod.Register(&statemod.Function{Name: "file.decode", Run: fileDecode,
		Doc: "Decode an encoded file and write it to disk.",
		Params: []statemod.Param{statemod.Req("name"), p("encoded_data", nil), p("contents_pillar", nil),
			p("encoding_type", "base64"), p("checksum", "md5")}})
}

// nodeTypes are mknod's node kinds: Salt's words for them and the S_IF bits.
var nodeTypes = map[string]struct {
	label, article string
	bit            uint32
}{
	"c": {"Character device", "a character device", syscall.S_IFCHR},
	"b": {"Block device", "a block device", syscall.S_IFBLK},
	"p": {"Fifo pipe", "a fifo pipe", syscall.S_IFIFO},
}

func fileMknod(c *statemod.Call) (*value.Map, error) {
	name := fileops.ExpandUser(c.Str("name"))
	ret := value.MapOf("name", name, "changes", value.NewMap(0), "comment", "", "result", false)
	if name == "" {
		return fileErr(ret, "Must provide name to file.mknod")
	}
	ntype := c.Str("ntype")
	kind, ok := nodeTypes[ntype]
	if !ok {
		ret.Set("comment", fmt.Sprintf("Node type unavailable: '%s'. Available node types are character ('c'), block ('b'), and pipe ('p')", ntype))
		return ret, nil
	}
	var st syscall.Stat_t
	statErr := syscall.Stat(name, &st)
	switch {
	case isFile(name):
		ret.Set("comment", fmt.Sprintf("File %s exists and is not %s. Refusing to continue", name, kind.article))
		return ret, nil
	case statErr != nil || st.Mode&syscall.S_IFMT != kind.bit:
		if c.Test {
			ret.Set("comment", fmt.Sprintf("%s %s is set to be created", kind.label, name))
			ret.Set("result", nil)
			return ret, nil
		}
		out, err := c.Salt("file.mknod", []any{name, ntype, c.Get("major"), c.Get("minor"), c.Get("user"), c.Get("group"), c.Get("mode")}, value.NewMap(0))
		if err != nil {
			return nil, err
		}
		m, _ := out.(*value.Map)
		if m == nil {
			return nil, fmt.Errorf("file.mknod returned %s", value.Repr(out))
		}
		return m, nil
	}
	if ntype != "p" {
		major := int64((st.Rdev>>8)&0xfff | (st.Rdev>>32)&^0xfff)
		minor := int64(st.Rdev&0xff | (st.Rdev>>12)&^0xff)
		// Salt compares the (major, minor) tuples: ints from the state only.
		if !value.Equal(c.Get("major"), major) || !value.Equal(c.Get("minor"), minor) {
			ret.Set("comment", fmt.Sprintf("%s %s exists and has a different major/minor %d/%d. Refusing to continue", kind.label, name, major, minor))
			return ret, nil
		}
	}
	pret := value.MapOf("name", name, "changes", value.NewMap(0), "comment", "", "result", true)
	var mode any
	if m := c.Get("mode"); value.Truthy(m) {
		mode = value.Str(m)
	}
	fileops.CheckPerms(name, pret, c.Get("user"), c.Get("group"), mode, false, c.Test)
	if ch, _ := mapGet(pret, "changes").(*value.Map); ch == nil || ch.Len() == 0 {
		pret.Set("comment", fmt.Sprintf("%s %s is in the correct state", kind.label, name))
	}
	return pret, nil
}

// decodeBase64 is base64.decodebytes: characters outside the alphabet are
// skipped, and missing padding is an error.
func decodeBase64(s string) ([]byte, error) {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '=' {
			b.WriteRune(r)
		}
	}
	clean := b.String()
	if i := strings.IndexByte(clean, '='); i >= 0 {
		clean = clean[:i] + strings.Repeat("=", (4-i%4)%4)
	}
	out, err := base64.StdEncoding.DecodeString(clean)
	if err != nil {
		return nil, &execmod.CommandExecutionError{Msg: "binascii.Error: Incorrect padding"}
	}
	return out, nil
}

func decodeDigest(data []byte, checksum string) (string, error) {
	var h hash.Hash
	switch checksum {
	case "md5":
		h = md5.New()
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	default:
		return "", &execmod.CommandExecutionError{Msg: fmt.Sprintf("Hash func '%s' is not supported.", checksum)}
	}
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fileDecode(c *statemod.Call) (*value.Map, error) {
	name := c.Str("name")
	ret := value.MapOf("name", c.Get("name"), "changes", value.NewMap(0), "result", false, "comment", "")
	data, pillarKey := c.Get("encoded_data"), c.Get("contents_pillar")
	var content any
	switch {
	case !value.Truthy(data) && !value.Truthy(pillarKey):
		return nil, &execmod.CommandExecutionError{Msg: "Specify either the 'encoded_data' or 'contents_pillar' argument."}
	case value.Truthy(data) && value.Truthy(pillarKey):
		return nil, &execmod.CommandExecutionError{Msg: "Specify only one 'encoded_data' or 'contents_pillar' argument."}
	case value.Truthy(data):
		content = data
	default:
		v, ok := value.Traverse(c.Pillar(), value.Str(pillarKey), ":")
		if !ok || v == false {
			return nil, &execmod.CommandExecutionError{Msg: "Pillar data not found."}
		}
		content = v
	}
	decoded, err := decodeBase64(value.Str(content))
	if err != nil {
		return nil, err
	}
	checksum := c.Str("checksum")
	insum, err := decodeDigest(decoded, checksum)
	if err != nil {
		return nil, err
	}
	if isFile(name) {
		cur, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		outsum, _ := decodeDigest(cur, checksum)
		if insum == outsum {
			ret.Set("comment", "File is in the correct state.")
			ret.Set("result", true)
			return ret, nil
		}
		ret.Set("changes", value.MapOf("old", outsum, "new", insum))
	}
	if c.Test {
		ret.Set("comment", "File is set to be updated.")
		ret.Set("result", nil)
		return ret, nil
	}
	if err := os.WriteFile(name, decoded, 0o666); err != nil {
		return nil, fileops.PyOSError(err)
	}
	ret.Set("result", true)
	ret.Set("comment", "File was updated.")
	if ch := mapGet(ret, "changes").(*value.Map); ch.Len() == 0 {
		ret.Set("changes", value.MapOf("old", nil, "new", insum))
	}
	return ret, nil
}
