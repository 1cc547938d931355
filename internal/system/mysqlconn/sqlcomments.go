package mysqlconn

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// StripComments removes the comments of an SQL script as Salt's
// mysql.file_query does with sqlparse.format(text, strip_comments=True)
// (sqlparse 0.4): comments are "-- " and "#  " to the end of the line and
// /* */ blocks, outside quotes and backquotes. A comment, with the
// comments and blanks after it up to the next word of its statement,
// becomes the line breaks it ends with (else one space), or nothing at
// the start of a statement or after "("; then every line loses its
// trailing blanks. Statements are split at ";" as sqlparse splits them
// (not inside parentheses or a CREATE ... BEGIN ... END block).
func StripComments(text string) string {
	toks := lexSQL(text)
	var out strings.Builder
	for _, stmt := range splitStatements(toks) {
		out.WriteString(serializeStatement(stripStatement(stmt)))
	}
	return out.String()
}

type sqlTokKind int

const (
	tokOther sqlTokKind = iota
	tokWord             // a keyword or a name: [A-Za-z]\w*
	tokName             // a word that sqlparse takes for a name (before "(" or ".")
	tokSpace            // one blank that is not a line break
	tokNewline
	tokSingleComment // -- or "# " to the end of the line, the line break included
	tokMultiComment
	tokPunct // ( ) ;
	tokQuoted
)

type sqlTok struct {
	kind sqlTokKind
	text string
}

func (t sqlTok) isSpace() bool { return t.kind == tokSpace || t.kind == tokNewline }

func (t sqlTok) isComment() bool { return t.kind == tokSingleComment || t.kind == tokMultiComment }

// quotedEnd returns the end of the quoted string starting at s[i] (quote
// doubled or backslash-escaped inside), or -1 when it is not closed.
func quotedEnd(s string, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == q && j+1 < len(s) && s[j+1] == q:
			j++
		case backslash && s[j] == '\\' && j+1 < len(s) && s[j+1] == q:
			j++
		case s[j] == q:
			return j + 1
		}
	}
	return -1
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

var endWord = regexp.MustCompile(`(?i)^END(\s+IF|\s+LOOP|\s+WHILE)?\b`)
var createWord = regexp.MustCompile(`(?i)^CREATE(\s+OR\s+REPLACE)?\b`)

// lexSQL splits s into the tokens that matter for comments and
// statements; everything else is one-character tokOther tokens.
func lexSQL(s string) []sqlTok {
	var toks []sqlTok
	add := func(k sqlTokKind, text string) { toks = append(toks, sqlTok{k, text}) }
	for i := 0; i < len(s); {
		c := s[i]
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "--") || strings.HasPrefix(rest, "# "):
			end := strings.IndexAny(rest, "\r\n")
			switch {
			case end < 0:
				end = len(rest)
			case rest[end] == '\r' && end+1 < len(rest) && rest[end+1] == '\n':
				end += 2
			default:
				end++
			}
			add(tokSingleComment, rest[:end])
			i += end
			continue
		case strings.HasPrefix(rest, "/*"):
			if end := strings.Index(rest[2:], "*/"); end >= 0 {
				add(tokMultiComment, rest[:end+4])
				i += end + 4
				continue
			}
		case strings.HasPrefix(rest, "\r\n"):
			add(tokNewline, "\r\n")
			i += 2
			continue
		case c == '\r' || c == '\n':
			add(tokNewline, rest[:1])
			i++
			continue
		case c == '(' || c == ')' || c == ';':
			add(tokPunct, rest[:1])
			i++
			continue
		case c == '\'' || c == '"' || c == '`':
			if end := quotedEnd(s, i, c, c != '`'); end > 0 {
				add(tokQuoted, s[i:end])
				i = end
				continue
			}
		case c == '[' && (i == 0 || !(isWordRune(rune(s[i-1])) || s[i-1] == ']' || s[i-1] == ')')):
			if end := strings.IndexAny(rest[1:], "[]"); end > 0 && rest[1+end] == ']' {
				add(tokQuoted, rest[:end+2])
				i += end + 2
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(rest)
		if unicode.IsSpace(r) {
			add(tokSpace, rest[:size])
			i += size
			continue
		}
		if unicode.IsLetter(r) {
			if m := endWord.FindString(rest); m != "" && !strings.HasPrefix(rest[len(m):], "(") {
				add(tokWord, m)
				i += len(m)
				continue
			}
			if m := createWord.FindString(rest); m != "" && !strings.HasPrefix(rest[len(m):], "(") {
				add(tokWord, m)
				i += len(m)
				continue
			}
			j := i + size
			for j < len(s) {
				r2, sz := utf8.DecodeRuneInString(s[j:])
				if !isWordRune(r2) {
					break
				}
				j += sz
			}
			word := s[i:j]
			after := s[j:]
			kind := tokWord
			if strings.HasPrefix(strings.TrimLeft(after, " \t\r\n\f\v"), ".") ||
				(strings.HasPrefix(after, "(") && !strings.EqualFold(word, "CASE")) {
				kind = tokName
			}
			add(kind, word)
			i = j
			continue
		}
		add(tokOther, rest[:size])
		i += size
	}
	return toks
}

// splitStatements is sqlparse's StatementSplitter: a statement ends at a
// ";" of level 0 and takes the blanks and "--" comments that follow it
// (not a line break).
func splitStatements(toks []sqlTok) [][]sqlTok {
	var stmts [][]sqlTok
	var cur []sqlTok
	level, beginDepth := 0, 0
	isCreate, consume := false, false
	for _, t := range toks {
		if consume && t.kind != tokSpace && t.kind != tokSingleComment {
			stmts = append(stmts, cur)
			cur = nil
			level, beginDepth, isCreate, consume = 0, 0, false, false
		}
		switch {
		case t.kind == tokPunct && t.text == "(":
			level++
		case t.kind == tokPunct && t.text == ")":
			level--
		case t.kind == tokWord:
			up := strings.ToUpper(t.text)
			switch {
			case strings.HasPrefix(up, "CREATE"):
				isCreate = true
			case up == "DECLARE" && isCreate && beginDepth == 0:
				level++
			case up == "BEGIN":
				beginDepth++
				if isCreate {
					level++
				}
			case up == "END":
				beginDepth = max(0, beginDepth-1)
				level--
			case (up == "IF" || up == "FOR" || up == "WHILE" || up == "CASE") && isCreate && beginDepth > 0:
				level++
			case strings.HasPrefix(up, "END") && (strings.HasSuffix(up, "IF") || strings.HasSuffix(up, "WHILE")):
				level--
			}
		}
		cur = append(cur, t)
		if level <= 0 && t.kind == tokPunct && t.text == ";" {
			consume = true
		}
	}
	for _, t := range cur {
		if !t.isSpace() {
			return append(stmts, cur)
		}
	}
	return stmts
}

var trailingBreaks = regexp.MustCompile(`((\r|\n)+) *$`)

// stripStatement replaces the comments of one statement.
func stripStatement(stmt []sqlTok) []sqlTok {
	var out []sqlTok
	for i := 0; i < len(stmt); i++ {
		t := stmt[i]
		if !t.isComment() {
			out = append(out, t)
			continue
		}
		// The comments and blanks up to the next word are one comment,
		// when there is such a word.
		text := t.text
		for j := i + 1; j < len(stmt); j++ {
			if !stmt[j].isComment() && !stmt[j].isSpace() {
				var b strings.Builder
				for _, u := range stmt[i:j] {
					b.WriteString(u.text)
				}
				text, i = b.String(), j-1
				break
			}
		}
		if len(out) == 0 || (out[len(out)-1].kind == tokPunct && out[len(out)-1].text == "(") {
			continue
		}
		if m := trailingBreaks.FindStringSubmatch(text); m != nil {
			out = append(out, sqlTok{tokNewline, m[1]})
		} else {
			out = append(out, sqlTok{tokSpace, " "})
		}
	}
	return out
}

// serializeStatement is sqlparse's SerializerUnicode: the statement's
// lines (split at line breaks outside quotes), each right-stripped, joined
// with "\n".
func serializeStatement(stmt []sqlTok) string {
	var b strings.Builder
	for _, t := range stmt {
		b.WriteString(t.text)
	}
	s := b.String()
	lines := []string{""}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\r' || c == '\n':
			if c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			lines = append(lines, "")
			i++
			continue
		case c == '\'' || c == '"':
			if end := splitQuotedEnd(s, i); end > 0 {
				lines[len(lines)-1] += s[i:end]
				i = end
				continue
			}
		}
		lines[len(lines)-1] += s[i : i+1]
		i++
	}
	for i, l := range lines {
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return strings.Join(lines, "\n")
}

// splitQuotedEnd is the end of the string at s[i] as sqlparse's line
// splitter reads strings (any character escaped by a backslash), or -1.
func splitQuotedEnd(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return -1
}
