package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// A check that keeps failing the same way is one line in the log, though its reason counts the
// attempts and the blocks behind; a failure of another kind is a line of its own, and the
// recovery one more.
func TestReadyzLogsAChangeOfStateOnce(t *testing.T) {
	t.Parallel()
	var attempts, state atomic.Int64
	cause := errors.New("evm: block 141: unavailable: no chain node has reached block 141 yet")
	e := newEnv(t, envOptions{ready: []ReadyCheck{{Name: "indexer", Check: func(context.Context) error {
		n := attempts.Add(1)
		switch state.Load() {
		case 0:
			return &Unready{Reason: fmt.Sprintf("indexer failing since 2026-11-26T09:00:00Z (%d attempts)", n), Err: cause}
		case 1:
			return &Unready{Reason: fmt.Sprintf("indexer is %d blocks behind the head (block %d of %d)", 20+n, 1200, 1220+n)}
		}
		return nil
	}}}})
	for want := range 3 {
		state.Store(int64(want))
		for range 4 {
			code := http.StatusServiceUnavailable
			if want == 2 {
				code = http.StatusOK
			}
			if r := e.get(t, "/readyz"); r.status != code {
				t.Fatalf("GET /readyz in state %d: %d, want %d", want, r.status, code)
			}
		}
	}
	logs := e.logs.String()
	for line, n := range map[string]int{"readiness check failing": 2, "readiness check recovered": 1, "attempts)": 1, "blocks behind": 1} {
		if got := strings.Count(logs, line); got != n {
			t.Errorf("%d lines with %q, want %d:\n%s", got, line, n, logs)
		}
	}
}
