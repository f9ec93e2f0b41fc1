package httpapi

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// series is what a scrape says: counters by "route status", and per route its histogram's
// count, sum and cumulative buckets by upper bound.
type series struct {
	requests  map[string]float64
	histogram map[string]histogram
}

type histogram struct {
	Count   uint64
	Sum     float64
	Buckets map[float64]uint64
}

func scrape(t *testing.T, g prometheus.Gatherer) series {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := series{requests: map[string]float64{}, histogram: map[string]histogram{}}
	label := func(m *dto.Metric, name string) string {
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				return l.GetValue()
			}
		}
		return ""
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			switch f.GetName() {
			case "curvekit_http_requests_total":
				out.requests[label(m, "route")+" "+label(m, "status")] = m.GetCounter().GetValue()
			case "curvekit_http_request_duration_seconds":
				h := histogram{Count: m.GetHistogram().GetSampleCount(), Sum: m.GetHistogram().GetSampleSum(), Buckets: map[float64]uint64{}}
				for _, b := range m.GetHistogram().GetBucket() {
					h.Buckets[b.GetUpperBound()] = b.GetCumulativeCount()
				}
				out.histogram[label(m, "route")] = h
			}
		}
	}
	return out
}

// routeMetricsFor returns metrics registered in a registry of their own, and a route named name
// that keeps its series, as the server's routes do.
func routeMetricsFor(t testing.TB, name string) (*metrics, *prometheus.Registry, *route) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	rt := &route{full: name}
	rt.metrics = m.route(name)
	return m, reg, rt
}

// TestMetricsSeries: the counters and the histogram say what was observed, a duration on a
// bound counts in that bound's bucket (Prometheus's "le"), and a route or status never seen
// has no series.
func TestMetricsSeries(t *testing.T) {
	m, reg, rt := routeMetricsFor(t, "GET /tokens")
	m.route("GET /never") // registered, never requested
	m.observe(rt, 200, 300*time.Microsecond)
	m.observe(rt, 200, 3*time.Millisecond)
	m.observe(rt, 200, 20*time.Second)
	m.observe(rt, 404, time.Millisecond)
	m.observe(nil, 404, 2*time.Second)

	got := scrape(t, reg)
	want := series{
		requests: map[string]float64{"GET /tokens 200": 3, "GET /tokens 404": 1, "unmatched 404": 1},
		histogram: map[string]histogram{
			"GET /tokens": {Count: 4, Sum: 20.0043, Buckets: map[float64]uint64{
				.0005: 1, .001: 2, .0025: 2, .005: 3, .01: 3, .025: 3, .05: 3, .1: 3, .25: 3, .5: 3, 1: 3, 2.5: 3, 10: 3,
			}},
			"unmatched": {Count: 1, Sum: 2, Buckets: map[float64]uint64{
				.0005: 0, .001: 0, .0025: 0, .005: 0, .01: 0, .025: 0, .05: 0, .1: 0, .25: 0, .5: 0, 1: 0, 2.5: 1, 10: 1,
			}},
		},
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(series{}), cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}
}

// TestMetricsConcurrent: observations from many goroutines at once, spread over the shards,
// all count.
func TestMetricsConcurrent(t *testing.T) {
	m, reg, rt := routeMetricsFor(t, "GET /config")
	const workers, each = 8, 5000
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				m.observe(rt, 200, time.Millisecond)
			}
		})
	}
	wg.Wait()
	got := scrape(t, reg)
	if n := got.requests["GET /config 200"]; n != workers*each {
		t.Errorf("requests %v, want %d", n, workers*each)
	}
	if h := got.histogram["GET /config"]; h.Count != workers*each || h.Buckets[.001] != workers*each || h.Buckets[.0005] != 0 {
		t.Errorf("histogram %+v", h)
	}
}

// TestMetricsThroughTheServer: requests over a socket are counted under their route's name,
// not their path.
func TestMetricsThroughTheServer(t *testing.T) {
	reg := prometheus.NewRegistry()
	e := newEnv(t, envOptions{metrics: reg})
	for range 3 {
		if r := e.get(t, "/tokens/"+ethToken.Hex()); r.status != http.StatusOK {
			t.Fatalf("GET token: %d %s", r.status, r.body)
		}
	}
	if r := e.get(t, "/no/such/route"); r.status != http.StatusNotFound {
		t.Fatalf("GET /no/such/route: %d", r.status)
	}
	got := scrape(t, reg)
	want := map[string]float64{"GET /tokens/:address 200": 3, "unmatched 404": 1}
	if diff := cmp.Diff(want, got.requests); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	if h := got.histogram["GET /tokens/:address"]; h.Count != 3 || h.Buckets[10] != 3 {
		t.Errorf("histogram %+v", h)
	}
}

func BenchmarkMetricsObserve(b *testing.B) {
	m, _, rt := routeMetricsFor(b, "GET /tokens/:address/quote")
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.observe(rt, 200, 700*time.Microsecond)
		}
	})
}
