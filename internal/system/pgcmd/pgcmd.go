// Package pgcmd holds the pure parts of Salt's postgres execution module
// (salt/modules/postgres.py): role password verifiers (md5 and
// SCRAM-SHA-256), the CREATE/ALTER ROLE option text, parsing psql's CSV
// output and ACL strings, and Python's LooseVersion ordering. Running psql
// is left to the module, which goes through cmd.run_all as Salt does.
package pgcmd

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MD5Password is PostgreSQL's md5 verifier: "md5" + md5(password + role).
func MD5Password(role, password string) string {
	sum := md5.Sum([]byte(password + role))
	return "md5" + hex.EncodeToString(sum[:])
}

// ScramSHA256 builds a SCRAM-SHA-256 verifier (RFC 7677) the way
// PostgreSQL stores it; a nil salt means 16 random bytes.
func ScramSHA256(password string, salt []byte, iterations int) string {
	if salt == nil {
		salt = make([]byte, 16)
		_, _ = rand.Read(salt)
	}
	salted, _ := pbkdf2.Key(sha256.New, saslprep(password), salt, iterations, 32)
	mac := func(msg string) []byte {
		h := hmac.New(sha256.New, salted)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac("Client Key"))
	enc := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, enc(salt), enc(stored[:]), enc(mac("Server Key")))
}

// saslprep applies RFC 4013's mapping and NFKC normalisation (non-ASCII
// spaces become a space, "commonly mapped to nothing" characters go).
func saslprep(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == 0xAD || r == 0x034F || r == 0x1806 || (r >= 0x180B && r <= 0x180D) ||
			(r >= 0x200B && r <= 0x200D) || r == 0x2060 || (r >= 0xFE00 && r <= 0xFE0F) || r == 0xFEFF:
			continue
		case r > 0x7f && unicode.Is(unicode.Zs, r):
			b.WriteRune(' ')
		default:
			b.WriteRune(r)
		}
	}
	return norm.NFKC.String(b.String())
}

// Method is a password storage method: "md5", "scram-sha-256", or "" for
// Salt's False (stored as given).
type Method string

// ParseMethod reads Salt's encrypted argument: None and True mean md5,
// False plain text, else "md5" or "scram-sha-256".
func ParseMethod(v any) (Method, error) {
	switch x := v.(type) {
	case nil:
		return "md5", nil
	case bool:
		if x {
			return "md5", nil
		}
		return "", nil
	case string:
		if x == "md5" || x == "scram-sha-256" {
			return Method(x), nil
		}
		return "", fmt.Errorf("Unknown password algorithm: %s", x)
	}
	return "", fmt.Errorf("Unknown password algorithm: %v", v)
}

// MaybeEncrypt turns password into the verifier stored for role unless it
// already is one (Salt's _maybe_encrypt_password).
func MaybeEncrypt(role, password string, m Method) string {
	switch {
	case m == "scram-sha-256" && !strings.HasPrefix(password, "SCRAM-SHA-256"):
		return ScramSHA256(password, nil, 4096)
	case m == "md5" && !strings.HasPrefix(password, "md5"):
		return MD5Password(role, password)
	}
	return password
}

var scramRe = regexp.MustCompile(`^SCRAM-SHA-256\$(\d+):([^$]+?)\$`)

// VerifyPassword reports whether password (plain or a verifier) matches
// the stored verifier of role.
func VerifyPassword(role, password, verifier string, m Method) bool {
	switch m {
	case "md5":
		if strings.HasPrefix(password, "md5") {
			return verifier == password
		}
		return verifier == MD5Password(role, password)
	case "scram-sha-256":
		if strings.HasPrefix(password, "SCRAM-SHA-256") {
			return verifier == password
		}
		sm := scramRe.FindStringSubmatch(verifier)
		if sm == nil {
			return false
		}
		iter, _ := strconv.Atoi(sm[1])
		salt, err := base64.StdEncoding.DecodeString(sm[2])
		if err != nil {
			return false
		}
		return verifier == ScramSHA256(password, salt, iter)
	}
	return verifier == password
}

// RoleOpts are the arguments of Salt's _role_cmd_args. Nil pointers and
// nil values are Python's None.
type RoleOpts struct {
	Kind        string // "user", "group" or "role": the login/inherit defaults
	Encrypted   any    // None, bool or a method name
	Login       any
	Connlimit   any
	Inherit     any
	Createdb    any
	Createroles any
	Superuser   any
	Groups      []string
	Replication any
	Password    any // the role's password: None, a string or a bool
	ValidUntil  any
	// DBSuperuser is the role's current superuser flag when updating
	// (nil when creating).
	DBSuperuser any
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case int64:
		return x != 0
	case int:
		return x != 0
	case float64:
		return x != 0
	}
	return true
}

// RoleArgs returns the option text that follows "CREATE ROLE x WITH" or
// "ALTER ROLE x WITH" for role name, with "; GRANT" statements for the
// groups, as Salt's _role_cmd_args builds it (prefix is that head).
func RoleArgs(prefix, name string, o RoleOpts, str func(any) string) (string, error) {
	inherit, login := o.Inherit, o.Login
	if inherit == nil && (o.Kind == "user" || o.Kind == "group") {
		inherit = true
	}
	if login == nil {
		switch o.Kind {
		case "user":
			login = true
		case "group":
			login = false
		}
	}
	encrypted := o.Encrypted
	if encrypted == nil {
		encrypted = "md5"
	}
	pw, pwIsStr := o.Password.(string)
	_, pwIsBool := o.Password.(bool)
	skipPasswd := !((pwIsStr && pw != "") || pwIsBool)
	escPassword, escValid := "", ""
	if pwIsStr && pw != "" {
		m, err := ParseMethod(encrypted)
		if err != nil {
			return "", err
		}
		escPassword = "'" + MaybeEncrypt(name, strings.ReplaceAll(pw, "'", "''"), m) + "'"
	}
	if vu, ok := o.ValidUntil.(string); ok && vu != "" {
		escValid = "'" + strings.ReplaceAll(vu, "'", "''") + "'"
	}
	skipSuper := truthy(o.DBSuperuser) && truthy(o.Superuser) == truthy(o.DBSuperuser)
	s := prefix
	add := func(test any, flag string, cond any, noPrefix, addtxt string, skip bool) {
		if skip {
			return
		}
		if cond == nil {
			cond = test
		}
		if test != nil {
			if truthy(cond) {
				s += " " + flag
			} else {
				s += " " + noPrefix + flag
			}
		}
		if addtxt != "" {
			s += " " + addtxt
		}
	}
	add(inherit, "INHERIT", nil, "NO", "", false)
	add(o.Createdb, "CREATEDB", nil, "NO", "", false)
	add(o.Createroles, "CREATEROLE", nil, "NO", "", false)
	add(o.Superuser, "SUPERUSER", nil, "NO", "", skipSuper)
	add(o.Replication, "REPLICATION", nil, "NO", "", false)
	add(login, "LOGIN", nil, "NO", "", false)
	add(truthy(o.Connlimit), "CONNECTION LIMIT", nil, "NO", str(o.Connlimit), o.Connlimit == nil)
	add(truthy(o.Password), "ENCRYPTED", truthy(encrypted), "UN", "", skipPasswd || pwIsBool)
	add(truthy(o.Password), "PASSWORD", nil, "NO", escPassword, skipPasswd)
	add(truthy(o.ValidUntil), "VALID UNTIL", nil, "NO", escValid, o.ValidUntil == nil)
	if strings.HasSuffix(s, "WITH") {
		s = strings.Replace(s, " WITH", "", 1)
	}
	for _, g := range o.Groups {
		s += fmt.Sprintf(`; GRANT "%s" TO "%s"`, g, name)
	}
	return s, nil
}

// Row is one CSV row of psql output: the header's column names and the
// row's values, in order.
type Row struct {
	Cols []string
	Vals []string
}

// Get returns the value of column c ("" when absent).
func (r Row) Get(c string) (string, bool) {
	for i, k := range r.Cols {
		if k == c && i < len(r.Vals) {
			return r.Vals[i], true
		}
	}
	return "", false
}

// ParseCSV reads the output of "COPY (...) TO STDOUT WITH CSV HEADER":
// the first row names the columns; empty lines are skipped.
func ParseCSV(out string) []Row {
	r := csv.NewReader(strings.NewReader(out))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	var header []string
	var rows []Row
	for {
		rec, err := r.Read()
		if err != nil {
			break
		}
		if len(rec) == 0 {
			continue
		}
		if header == nil {
			header = rec
			continue
		}
		n := len(rec)
		if n > len(header) {
			n = len(header)
		}
		rows = append(rows, Row{Cols: header[:n], Vals: rec[:n]})
	}
	return rows
}

// SplitArray splits a PostgreSQL array literal's body ("{a,\"b c\"}") the
// way Python's csv module reads it once the braces are stripped.
func SplitArray(s string) []string {
	s = strings.Trim(s, "{}")
	if s == "" {
		return []string{}
	}
	r := csv.NewReader(strings.NewReader(s))
	r.LazyQuotes = true
	rec, err := r.Read()
	if err != nil {
		return strings.Split(s, ",")
	}
	return rec
}

// PyDatetime parses "YYYY-MM-DD HH:MM:SS" and returns the repr Python
// gives the datetime (what Salt's JSON output shows), ok false when the
// text does not parse.
func PyDatetime(s string) (string, bool) {
	t, err := time.Parse("2006-01-02 15:04:05", s)
	if err != nil {
		return "", false
	}
	r := fmt.Sprintf("datetime.datetime(%d, %d, %d, %d, %d", t.Year(), int(t.Month()), t.Day(), t.Hour(), t.Minute())
	if t.Second() != 0 {
		r += fmt.Sprintf(", %d", t.Second())
	}
	return r + ")", true
}

var looseRe = regexp.MustCompile(`(\d+|[a-z]+|\.)`)

// looseParts splits a version as LooseVersion does.
func looseParts(v string) []any {
	var out []any
	for _, p := range looseRe.FindAllString(v, -1) {
		if p == "." {
			continue
		}
		if n, err := strconv.Atoi(p); err == nil {
			out = append(out, n)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// LooseLess reports whether version a sorts before b under LooseVersion
// (numbers compare numerically, a number sorts before a word).
func LooseLess(a, b string) bool {
	pa, pb := looseParts(a), looseParts(b)
	for i := 0; i < len(pa) && i < len(pb); i++ {
		x, y := pa[i], pb[i]
		xi, xIsInt := x.(int)
		yi, yIsInt := y.(int)
		switch {
		case xIsInt && yIsInt:
			if xi != yi {
				return xi < yi
			}
		case xIsInt != yIsInt:
			return xIsInt
		default:
			if x.(string) != y.(string) {
				return x.(string) < y.(string)
			}
		}
	}
	return len(pa) < len(pb)
}

// Privilege letters of PostgreSQL's ACL items and their names.
var PrivilegeNames = map[byte]string{
	'a': "INSERT", 'C': "CREATE", 'D': "TRUNCATE", 'c': "CONNECT", 't': "TRIGGER",
	'r': "SELECT", 'U': "USAGE", 'T': "TEMPORARY", 'w': "UPDATE", 'X': "EXECUTE",
	'x': "REFERENCES", 'd': "DELETE", '*': "GRANT",
}

// PrivilegeTypes are the ACL letters each object type can hold.
var PrivilegeTypes = map[string]string{
	"table": "arwdDxt", "tablespace": "C", "language": "U", "sequence": "rwU",
	"schema": "UC", "database": "CTc", "function": "X",
}
