package mysqlconn

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Grants are the privilege names Salt accepts in a grant (its __grants__).
var Grants = map[string]bool{}

func init() {
	for _, g := range strings.Split("ALL PRIVILEGES|ALTER|ALTER ROUTINE|BACKUP_ADMIN|BINLOG_ADMIN|BINLOG ADMIN|BINLOG MONITOR|"+
		"BINLOG REPLAY|CONNECTION_ADMIN|CONNECTION ADMIN|CREATE|CREATE ROLE|CREATE ROUTINE|CREATE TABLESPACE|"+
		"CREATE TEMPORARY TABLES|CREATE USER|CREATE VIEW|DELETE|DELETE HISTORY|DROP|DROP ROLE|ENCRYPTION_KEY_ADMIN|"+
		"EVENT|EXECUTE|FEDERATED ADMIN|FILE|GRANT OPTION|GROUP_REPLICATION_ADMIN|INDEX|INSERT|LOCK TABLES|"+
		"PERSIST_RO_VARIABLES_ADMIN|PROCESS|READ_ONLY ADMIN|REFERENCES|RELOAD|REPLICA MONITOR|REPLICATION CLIENT|"+
		"REPLICATION MASTER ADMIN|REPLICATION REPLICA|REPLICATION SLAVE|REPLICATION_SLAVE_ADMIN|REPLICATION SLAVE ADMIN|"+
		"RESOURCE_GROUP_ADMIN|RESOURCE_GROUP_USER|ROLE_ADMIN|SELECT|SET USER|SET_USER_ID|SHOW DATABASES|SHOW VIEW|"+
		"SHUTDOWN|SLAVE MONITOR|SUPER|SYSTEM_VARIABLES_ADMIN|TRIGGER|UPDATE|USAGE|XA_RECOVER_ADMIN", "|") {
		Grants[g] = true
	}
}

// AllPrivilegesMySQL8 is what ALL on *.* stands for on MySQL 8 (Salt's
// __all_privileges__), comma-joined.
const AllPrivilegesMySQL8 = "ALTER,ALTER ROUTINE,BACKUP_ADMIN,BINLOG_ADMIN,CONNECTION_ADMIN,CREATE,CREATE ROLE,CREATE ROUTINE," +
	"CREATE TABLESPACE,CREATE TEMPORARY TABLES,CREATE USER,CREATE VIEW,DELETE,DROP,DROP ROLE,ENCRYPTION_KEY_ADMIN,EVENT,EXECUTE," +
	"FILE,GROUP_REPLICATION_ADMIN,INDEX,INSERT,LOCK TABLES,PERSIST_RO_VARIABLES_ADMIN,PROCESS,REFERENCES,RELOAD," +
	"REPLICATION CLIENT,REPLICATION SLAVE,REPLICATION_SLAVE_ADMIN,RESOURCE_GROUP_ADMIN,RESOURCE_GROUP_USER,ROLE_ADMIN,SELECT," +
	"SET_USER_ID,SHOW DATABASES,SHOW VIEW,SHUTDOWN,SUPER,SYSTEM_VARIABLES_ADMIN,TRIGGER,UPDATE,XA_RECOVER_ADMIN"

// QuoteIdentifier quotes a database, table or column name for SQL:
// backquoted, backquotes doubled and, for a database-level grant, "_"
// escaped. (Salt's quote_identifier also doubles "%" for PyMySQL's
// formatting; SaltQuoteIdentifier returns that form.)
func QuoteIdentifier(id string, forGrants bool) string {
	id = strings.ReplaceAll(id, "`", "``")
	if forGrants {
		id = strings.ReplaceAll(id, "_", `\_`)
	}
	return "`" + id + "`"
}

// SaltQuoteIdentifier is the value of Salt's mysql.quote_identifier.
func SaltQuoteIdentifier(id string, forGrants bool) string {
	return strings.ReplaceAll(QuoteIdentifier(id, forGrants), "%", "%%")
}

// ErrInvalidGrant is wrapped by the errors of NormalizeGrant.
var ErrInvalidGrant = errors.New("invalid grant")

var grantSplitRE = regexp.MustCompile(`([\w\s]+)(\([^)(]*\))?\s*,?`)

// NormalizeGrant is Salt's __grant_normalize: ALL becomes ALL PRIVILEGES
// and every privilege must be a known one ("Invalid grant : 'X'").
func NormalizeGrant(grant string) (string, error) {
	if strings.ToUpper(strings.TrimSpace(grant)) == "ALL" {
		grant = "ALL PRIVILEGES"
	}
	for _, m := range grantSplitRE.FindAllStringSubmatch(grant, -1) {
		if !Grants[strings.ToUpper(strings.TrimSpace(m[1]))] {
			return "", fmt.Errorf("%w: Invalid grant : '%s'", ErrInvalidGrant, m[1])
		}
	}
	return grant, nil
}

var commaRE = regexp.MustCompile(`\s*,\s*`)

// Generated is a GRANT statement for a user and host given apart (Salt's
// {"qry": ..., "args": {"user": ..., "host": ...}}): the SQL has two
// placeholders, for the user and the host.
type Generated struct {
	SQL, User, Host string
}

// SSLOption is one entry of a grant's ssl_option list.
type SSLOption struct {
	Key   string
	Value any
}

// GenerateGrant is Salt's __grant_generate: the GRANT statement for
// grant on database ("db.table") to user@host.
func GenerateGrant(grant, database, user, host string, grantOption, escape bool, ssl []SSLOption, truthy func(any) bool) (*Generated, error) {
	grant = strings.ToUpper(commaRE.ReplaceAllString(grant, ", "))
	grant, err := NormalizeGrant(grant)
	if err != nil {
		return nil, err
	}
	db, table := splitDatabase(database)
	if escape {
		if db != "*" {
			db = QuoteIdentifier(db, table == "*")
		}
		if table != "*" {
			table = QuoteIdentifier(table, false)
		}
	}
	q := "GRANT " + grant + " ON " + db + "." + table + " TO ?@?"
	if len(ssl) > 0 {
		var parts []string
		for _, o := range ssl {
			k := strings.ToUpper(strings.TrimSpace(o.Key))
			switch k {
			case "CIPHER", "ISSUER", "SUBJECT":
				parts = append(parts, k+" '"+strings.ReplaceAll(fmt.Sprint(o.Value), "'", "")+"'")
			case "SSL", "X509":
				if truthy(o.Value) {
					parts = append(parts, k)
				}
			default:
				return nil, fmt.Errorf("Invalid SSL option : '%s'", o.Key)
			}
		}
		q += " REQUIRE " + strings.Join(parts, " AND ")
	}
	if grantOption {
		q += " WITH GRANT OPTION"
	}
	return &Generated{SQL: q, User: user, Host: host}, nil
}

// RevokeSQL is the REVOKE statement of Salt's grant_revoke (grant already
// normalized), with placeholders for the user and the host.
func RevokeSQL(grant, database string, grantOption bool) string {
	if grantOption {
		grant += ", GRANT OPTION"
	}
	db, table := splitDatabase(database)
	if db != "*" {
		db = QuoteIdentifier(db, table == "*")
	}
	if table != "*" {
		table = QuoteIdentifier(table, false)
	}
	return "REVOKE " + grant + " ON " + db + "." + table + " FROM ?@?;"
}

// splitDatabase is Python's database.rpartition("."): ("", "x") without
// a dot.
func splitDatabase(database string) (string, string) {
	i := strings.LastIndex(database, ".")
	if i < 0 {
		return "", database
	}
	return database[:i], database[i+1:]
}

// TokenError is the Python exception Salt's tokenizing raises on a
// malformed statement (ValueError, IndexError).
type TokenError struct{ Class, Msg string }

func (e *TokenError) Error() string { return e.Msg }

var errIndex = &TokenError{Class: "IndexError", Msg: "list index out of range"}

// Tokens are a grant statement's parts (Salt's _grant_to_tokens).
type Tokens struct {
	User, Host, Database string
	Grant                []string
}

// lex splits s as Python's shlex.shlex does in non-POSIX mode with
// quotes "'`" and '"' a word character: words, quoted strings (quotes
// kept) and single punctuation characters.
func lex(s string) ([]string, error) {
	isWord := func(c byte) bool {
		return c == '_' || c == '"' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
	var out []string
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isSpace(c):
			i++
		case c == '\'' || c == '`':
			j := i + 1
			for j < len(s) && s[j] != c {
				j++
			}
			if j >= len(s) {
				return nil, &TokenError{Class: "ValueError", Msg: "No closing quotation"}
			}
			out = append(out, s[i:j+1])
			i = j + 1
		case isWord(c):
			j := i + 1
			for j < len(s) && (isWord(s[j]) || s[j] == '\'' || s[j] == '`') {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			out = append(out, s[i:i+1])
			i++
		}
	}
	return out, nil
}

// Tokenize is Salt's _grant_to_tokens for a grant line as SHOW GRANTS
// prints it.
func Tokenize(grant string) (*Tokens, error) { return tokenize(grant, nil) }

// TokenizeGenerated is _grant_to_tokens for a generated statement: the
// user and host are the generated ones.
func TokenizeGenerated(g *Generated) (*Tokens, error) { return tokenize(g.SQL, g) }

func tokenize(sql string, g *Generated) (*Tokens, error) {
	toks, err := lex(sql)
	if err != nil {
		return nil, err
	}
	// at is exploded_grant[i], which raises IndexError past the end.
	var bad bool
	at := func(i int) string {
		if i < len(toks) {
			return toks[i]
		}
		bad = true
		return ""
	}
	t := &Tokens{Grant: []string{}}
	hostSet := false
	if g != nil {
		t.User, t.Host, hostSet = g.User, g.Host, true
	}
	phrase, column, current := "grants", false, ""
	var multi []string
	pos := 1
loop:
	for _, tok := range toks[min(1, len(toks)):] {
		switch {
		case tok == "," && phrase == "grants":
			pos++
			continue
		case tok == "(" && phrase == "grants":
			pos++
			column = true
			continue
		case tok == ")" && phrase == "grants":
			pos++
			column = false
			continue
		case tok == "ON" && phrase == "grants":
			phrase = "db"
			pos++
			continue
		case tok == "TO" && phrase == "tables":
			phrase = "user"
			pos++
			continue
		case tok == "@" && phrase == "pre-host":
			phrase = "host"
			pos++
			continue
		}
		switch phrase {
		case "grants":
			next := at(pos + 1)
			if bad {
				return nil, errIndex
			}
			if next == "," || next == "ON" || next == "(" || next == ")" {
				if len(multi) > 0 {
					t.Grant = append(t.Grant, strings.Join(append(multi, tok), " "))
					multi = nil
				} else {
					if !column {
						current = tok
					} else {
						tok = current + "." + tok
					}
					t.Grant = append(t.Grant, tok)
				}
			} else {
				multi = append(multi, tok)
			}
		case "db":
			t.Database += tok
			if pos+1 >= len(toks) {
				break loop
			}
			if toks[pos+1] == "." {
				phrase = "tables"
			}
		case "tables":
			t.Database += tok
		case "user":
			if g != nil {
				break loop
			}
			t.User += tok
			if at(pos+1) == "@" {
				phrase = "pre-host"
			}
			if bad {
				return nil, errIndex
			}
		case "host":
			t.Host, hostSet = tok, true
			break loop
		}
		pos++
	}
	if g == nil {
		t.User = strings.Trim(t.User, "'")
		if hostSet {
			t.Host = strings.Trim(t.Host, "'")
		}
	}
	return t, nil
}

// ResolveAliases is Salt's _resolve_grant_aliases: on MariaDB the
// privileges it reports under another name (REPLICATION REPLICA as
// REPLICATION SLAVE, REPLICATION CLIENT as BINLOG MONITOR, REPLICA
// MONITOR as SLAVE MONITOR) are renamed, by server version. cmp compares
// versions as Salt's version_cmp does.
func ResolveAliases(grants []string, server string, cmp func(a, b string) int) []string {
	if !strings.Contains(server, "MariaDB") {
		return grants
	}
	out := make([]string, 0, len(grants))
	for _, g := range grants {
		switch {
		case g == "REPLICATION REPLICA" && cmp(server, "10.5.1") >= 0:
			g = "REPLICATION SLAVE"
		case g == "REPLICATION CLIENT" && cmp(server, "10.5.2") >= 0:
			g = "BINLOG MONITOR"
		case g == "REPLICA MONITOR" && cmp(server, "10.5.9") >= 0:
			g = "SLAVE MONITOR"
		}
		out = append(out, g)
	}
	return out
}
