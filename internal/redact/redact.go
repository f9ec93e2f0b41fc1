// Package redact removes credentials from text before it is logged: the password of a URL's
// user info, every query value, path segments long enough to be a provider's API key (hosted
// JSON-RPC endpoints put it in the path: /v3/<key>), and the values of key=value credentials
// (a PostgreSQL connection string's password=). Handler applies it to every log record.
//
// What stays is what an operator needs to tell endpoints apart: the scheme, host, port and the
// short path segments (/v3, /rpc, a database's name).
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// Mask replaces what was removed.
const Mask = "REDACTED"

// maxKept is the longest path segment kept: version prefixes and database names are shorter than
// every provider key (Infura and Alchemy keys have 32 characters, QuickNode tokens 40).
const maxKept = 12

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

// URL is raw with its password, query values and long path segments masked. A string that does
// not parse as a URL keeps only its scheme.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		scheme, _, _ := strings.Cut(raw, "://")
		return scheme + "://" + Mask
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), Mask)
		} else if len(u.User.Username()) > maxKept {
			u.User = url.User(Mask) // a token passed as the user name
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
	if strings.Trim(u.Path, "/") != "" {
		segs := strings.Split(u.Path, "/")
		for i, s := range segs {
			if len(s) > maxKept {
				segs[i] = Mask
			}
		}
		u.Path, u.RawPath = strings.Join(segs, "/"), ""
	}
	return u.String()
}
