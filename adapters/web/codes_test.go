package web_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/curvekit/curvekit"
)

// The page explains every refusal code in words: ui/src/codes.ts has one sentence for each code
// of curvekit.Codes, and none for a code that does not exist.
func TestEveryCodeIsExplained(t *testing.T) {
	src, err := os.ReadFile("ui/src/codes.ts")
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	start := strings.Index(body, "export const codeText")
	if start < 0 {
		t.Fatal("ui/src/codes.ts has no codeText")
	}
	end := strings.Index(body[start:], "\n};")
	if end < 0 {
		t.Fatal("codeText does not end")
	}
	entry := regexp.MustCompile(`(?m)^\s+([A-Z_]+):\s*'((?:[^'\\]|\\.)*)',?$`)
	explained := map[string]string{}
	for _, m := range entry.FindAllStringSubmatch(body[start:start+end], -1) {
		explained[m[1]] = m[2]
	}
	for _, c := range curvekit.Codes {
		if len(strings.TrimSpace(explained[string(c)])) < 20 {
			t.Errorf("the page does not explain %s in words", c)
		}
		delete(explained, string(c))
	}
	for c := range explained {
		t.Errorf("the page explains %s, which is not a code of curvekit.Codes", c)
	}
}
