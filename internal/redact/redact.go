// Package redact removes credentials from text before it is logged: a URL's password (and a user
// name without one outside database URLs: a token), every query value, every path segment of a
// URL other than a database's (hosted JSON-RPC endpoints put their key in the path, /v3/<key>,
// and a key may be short), and the values of key=value credentials (a PostgreSQL connection
// string's password=). Handler applies it to every log record.
//
// What stays is what an operator needs to tell endpoints apart: the scheme, host and port, and
// in a database URL the user and the database's name.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces what was removed.
const Mask = "REDACTED"

// databases are the schemes whose path names a database (or its number) and whose user name is
// an account, not a key: both are kept.
var databases = map[string]bool{"postgres": true, "postgresql": true, "redis": true, "rediss": true, "mysql": true}

var (
	// urls finds URLs in free text: a scheme, "://", then everything up to a space or a quote.
	urls = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>` + "`" + `]+`)
	// pairs finds key=value credentials outside URLs (libpq's "host=… password=…"). Only "="
	// joins them: "token: 0x…" in a message names a token, not a secret.
	pairs = regexp.MustCompile(`(?i)\b(password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key)(\s*=\s*)([^\s&;,'"]+)`)
)

// Text is s with the credentials of every URL and key=value pair in it masked.
func Text(s string) string {
	if strings.Contains(s, "://") {
		s = urls.ReplaceAllStringFunc(s, func(m string) string {
			// Punctuation that ends a sentence or an error's prefix is not the URL's.
			body := strings.TrimRight(m, ".,;:)]}!?")
			return URL(body) + m[len(body):]
		})
	}
	if strings.IndexByte(s, '=') >= 0 {
		s = pairs.ReplaceAllStringFunc(s, func(m string) string {
			sub := pairs.FindStringSubmatch(m)
			if sub[3] == Mask {
				return m
			}
			return sub[1] + sub[2] + Mask
		})
	}
	return s
}

// URL is raw with its password, query values and path segments masked: of a database URL
// (postgres, redis, mysql) the password and query values only. A string that does not parse as a
// URL keeps only its scheme.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		scheme, _, _ := strings.Cut(raw, "://")
		return scheme + "://" + Mask
	}
	db := databases[strings.ToLower(u.Scheme)]
	if u.User != nil {
		switch _, has := u.User.Password(); {
		case has:
			u.User = url.UserPassword(u.User.Username(), Mask)
		case !db:
			u.User = url.User(Mask) // a user name alone is a token
		}
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k, vs := range q {
			for i := range vs {
				vs[i] = Mask
			}
			q[k] = vs
		}
		u.RawQuery = q.Encode()
	}
	if u.Fragment != "" {
		u.Fragment = Mask
	}
	if u.Opaque != "" {
		u.Opaque = Mask
	}
	if !db && strings.Trim(u.Path, "/") != "" {
		segs := strings.Split(u.Path, "/")
		for i, s := range segs {
			if s != "" {
				segs[i] = Mask
			}
		}
		u.Path, u.RawPath = strings.Join(segs, "/"), ""
	}
	return u.String()
}
