package main

import (
	"strings"
	"testing"
)

// The help says what a newcomer needs: the exit codes, what the API key is for, and the values
// of the enumerated flags.
func TestHelpTexts(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"Exit codes: 0 done", "3 server unreachable", "7 not found", "for the agent, orders, webhooks and mcp commands"}},
		{[]string{"tokens", "--help"}, []string{"curve (still on their", "graduated (trading on the pool)", "newest, volume24h, marketCap or progress"}},
		{[]string{"candles", "--help"}, []string{"1m, 5m, 15m, 1h, 4h or 1d"}},
	} {
		r := run(t, "", nil, tc.args...)
		out := strings.Join(strings.Fields(r.stdout), " ")
		for _, w := range tc.want {
			if r.code != 0 || !strings.Contains(out, w) {
				t.Errorf("%v: exit %d, lacks %q:\n%s", tc.args, r.code, w, r.stdout)
			}
		}
	}
}

// An agent job's progress is printed before the state it ends in.
func TestAgentProgressBeforeCompletion(t *testing.T) {
	s := startServer(t)
	key, _ := s.apiKey(t, s.signIn(t, "progress"), `{"name":"progress"}`)
	r := run(t, "", []string{"CURVEKIT_SERVER=" + s.base, "CURVEKIT_API_KEY=" + key}, "agent", "prompt", "price of DETH", "--interval", "100ms")
	progress, done := strings.Index(r.stderr, "  … "), strings.Index(r.stderr, ": completed")
	if r.code != 0 || progress < 0 || done < 0 || progress > done {
		t.Fatalf("exit %d; progress at %d, completed at %d:\n%s", r.code, progress, done, r.stderr)
	}
}
