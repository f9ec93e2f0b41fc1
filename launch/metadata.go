package launch

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/curvekit/curvekit"
)

// Bounds of the metadata fields, as pump.fun and its peers keep them: a name fits a token list
// row, a symbol a ticker.
const (
	MaxName          = 32
	MaxSymbol        = 10
	MaxDescription   = 1000
	MaxURL           = 512
	MaxSubjectHandle = 50
)

var (
	symbolRE  = regexp.MustCompile(`^[A-Za-z0-9]+$`)
	handleRE  = regexp.MustCompile(`^@?[A-Za-z0-9_.]+$`)
	errNoHost = "must be an http(s) URL with a host"
)

// Metadata is the body of POST /launch/metadata (SPEC 2.10).
type Metadata struct {
	Name          string  `json:"name"`
	Symbol        string  `json:"symbol"`
	Description   *string `json:"description,omitempty"`
	ImageURL      *string `json:"imageUrl,omitempty"`
	Twitter       *string `json:"twitter,omitempty"`
	Telegram      *string `json:"telegram,omitempty"`
	Website       *string `json:"website,omitempty"`
	SubjectHandle *string `json:"subjectHandle,omitempty"`
}

// Validate checks every rule and reports every failing field at once as curvekit.Problems (which
// is ErrInvalid), so a client fixes the request in one round.
func (m Metadata) Validate() error {
	var p curvekit.Problems
	text := func(field, v string, required bool, max int) bool {
		switch {
		case v == "" && required:
			p = append(p, field+" is required")
		case !utf8.ValidString(v):
			p = append(p, field+" must be UTF-8 text")
		case utf8.RuneCountInString(v) > max:
			p = append(p, fmt.Sprintf("%s must be at most %d characters", field, max))
		case strings.TrimSpace(v) != v:
			p = append(p, field+" must not start or end with spaces")
		default:
			return true
		}
		return false
	}
	if text("name", m.Name, true, MaxName) && strings.IndexFunc(m.Name, unsafeRune(false)) >= 0 {
		p = append(p, "name must not contain control or bidirectional formatting characters")
	}
	if text("symbol", m.Symbol, true, MaxSymbol) && !symbolRE.MatchString(m.Symbol) {
		p = append(p, "symbol must be letters and digits only")
	}
	if m.Description != nil && utf8.ValidString(*m.Description) && utf8.RuneCountInString(*m.Description) > MaxDescription {
		p = append(p, fmt.Sprintf("description must be at most %d characters", MaxDescription))
	} else if m.Description != nil && !utf8.ValidString(*m.Description) {
		p = append(p, "description must be UTF-8 text")
	} else if m.Description != nil && strings.IndexFunc(*m.Description, unsafeRune(true)) >= 0 {
		p = append(p, "description must not contain control or bidirectional formatting characters (new lines and tabs are fine)")
	}
	if m.ImageURL != nil {
		if msg := imageURLProblem(*m.ImageURL); msg != "" {
			p = append(p, "imageUrl "+msg)
		}
	}
	for _, l := range []struct {
		field string
		v     *string
	}{{"twitter", m.Twitter}, {"telegram", m.Telegram}, {"website", m.Website}} {
		if l.v == nil {
			continue
		}
		if msg := linkProblem(*l.v, false); msg != "" {
			p = append(p, l.field+" "+msg)
		}
	}
	if m.SubjectHandle != nil && text("subjectHandle", *m.SubjectHandle, true, MaxSubjectHandle) && !handleRE.MatchString(*m.SubjectHandle) {
		p = append(p, "subjectHandle must be a handle: letters, digits, _ and ., optionally after @")
	}
	if len(p) > 0 {
		return p
	}
	return nil
}

// unsafeRune reports the characters a stranger's text may not hold, because a terminal or a page
// would act on them rather than show them: control characters (new lines and tabs allowed where
// layout is), and the bidirectional formatting characters that reorder what is displayed.
func unsafeRune(layout bool) func(rune) bool {
	return func(r rune) bool {
		switch {
		case layout && (r == '\n' || r == '\t'):
			return false
		case unicode.IsControl(r):
			return true
		}
		return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
	}
}

// linkProblem says what is wrong with a link, or "" when it is an absolute http(s) URL (https only
// when httpsOnly) with a host and no credentials.
func linkProblem(s string, httpsOnly bool) string {
	if len(s) > MaxURL {
		return fmt.Sprintf("must be at most %d characters", MaxURL)
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" || strings.ContainsAny(s, " \t\r\n") {
		return errNoHost
	}
	switch {
	case u.Scheme == "https":
		return ""
	case u.Scheme == "http" && !httpsOnly:
		return ""
	case httpsOnly:
		return "must be an ipfs:// or https URL"
	}
	return errNoHost
}

// imageURLProblem accepts ipfs://<cid>[/path] and https URLs.
func imageURLProblem(s string) string {
	if rest, ok := strings.CutPrefix(s, "ipfs://"); ok {
		c, _, _ := strings.Cut(rest, "/")
		if _, err := ParseCID(c); err != nil && !strings.HasPrefix(c, "Qm") {
			return "must name a CID after ipfs://"
		}
		if len(s) > MaxURL || strings.ContainsAny(s, " \t\r\n?#") {
			return "must be an ipfs:// or https URL"
		}
		return ""
	}
	return linkProblem(s, true)
}

// Document is the JSON pinned for a launch: what wallets, explorers and pump.fun-style sites read
// at the token's URI. Field order is fixed so the same metadata always gives the same CID.
type Document struct {
	Name          string `json:"name"`
	Symbol        string `json:"symbol"`
	Description   string `json:"description"`
	Image         string `json:"image,omitempty"`
	ShowName      bool   `json:"showName"`
	CreatedOn     string `json:"createdOn"`
	Twitter       string `json:"twitter,omitempty"`
	Telegram      string `json:"telegram,omitempty"`
	Website       string `json:"website,omitempty"`
	SubjectHandle string `json:"subjectHandle,omitempty"`
}

// Document validates m and returns the document to pin; createdOn names the launching site.
func (m Metadata) Document(createdOn string) (Document, error) {
	if err := m.Validate(); err != nil {
		return Document{}, err
	}
	s := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	return Document{
		Name: m.Name, Symbol: m.Symbol, Description: s(m.Description), Image: s(m.ImageURL),
		ShowName: true, CreatedOn: createdOn,
		Twitter: s(m.Twitter), Telegram: s(m.Telegram), Website: s(m.Website), SubjectHandle: s(m.SubjectHandle),
	}, nil
}

// Encode is the document's exact bytes as pinned.
func (d Document) Encode() []byte {
	b, err := json.Marshal(d)
	if err != nil {
		panic(err) // only strings and a bool: cannot fail
	}
	return b
}
