package httpapi

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/curvekit/curvekit/auth"
)

// The exports spend a bucket of their own: a client that used up its exports still reads the
// API, and one that used up its reads still exports.
func TestExportClass(t *testing.T) {
	t.Parallel()
	p := policy(2)
	p[auth.ClassExport] = auth.Rule{Limit: auth.Every(2, time.Hour)}
	e := newEnv(t, envOptions{policy: p})
	base := "/tokens/" + ethToken.Hex()
	for _, path := range []string{base + "/trades.csv", base + "/candles.ndjson"} {
		r := e.get(t, path)
		if r.status != http.StatusOK || r.header.Get("Content-Disposition") == "" {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
	}
	e.get(t, base+"/trades.ndjson").want(t, http.StatusTooManyRequests, throttled)
	e.get(t, base+"/trades").decode(t, new(tradeListJSON))
	e.get(t, base+"/stats").decode(t, new(statsJSON))
	e.get(t, base).want(t, http.StatusTooManyRequests, throttled)
	want := []string{"export:ip:127.0.0.1", "export:ip:127.0.0.1", "export:ip:127.0.0.1",
		"default:ip:127.0.0.1", "default:ip:127.0.0.1", "default:ip:127.0.0.1"}
	if diff := cmp.Diff(want, e.limiter.seen()); diff != "" {
		t.Fatalf("limiter keys (-want +got):\n%s", diff)
	}
}
