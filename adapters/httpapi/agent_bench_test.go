package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// GET /agent/job/:id over a real socket through the whole pipeline (authenticate, limit,
// authorize, one read by primary key on SQLite), in parallel: what polling clients cost.
func BenchmarkAgentJobRead(b *testing.B) {
	e := newAgentEnv(b, false)
	client := e.srv.Client()
	client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	call := func(method, url, body string) (*http.Response, error) {
		req, err := http.NewRequest(method, url, strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("X-API-Key", traderKey)
		req.Header.Set("Content-Type", "application/json")
		return client.Do(req)
	}
	res, err := call(http.MethodPost, e.srv.URL+"/agent/job", `{"prompt":"trending tokens"}`)
	if err != nil {
		b.Fatal(err)
	}
	var sub struct{ JobID string }
	err = json.NewDecoder(res.Body).Decode(&sub)
	res.Body.Close()
	if err != nil || sub.JobID == "" {
		b.Fatalf("submit: %d, %v", res.StatusCode, err)
	}
	url := e.srv.URL + "/agent/job/" + sub.JobID
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			res, err := call(http.MethodGet, url, "")
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				b.Errorf("status %d", res.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}
