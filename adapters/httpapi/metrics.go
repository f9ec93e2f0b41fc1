package httpapi

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the API's Prometheus series: requests by route and status, and latency by route.
// The route label is the route table's name ("GET /tokens/:address"), never the raw path, so
// label cardinality is bounded by the table.
//
// A request's observation is a few atomic adds to one of several shards, chosen at random, each
// on cache lines of its own; a scrape sums the shards. Cores answering one route at once then
// rarely write the same cache line, where one Prometheus histogram per route would pass its
// count, bucket and sum between them on every request.
type metrics struct {
	requests, latency *prometheus.Desc
	shards            int // a power of two

	// The collectors of each route (and status) once looked up: a request's observation is a
	// read of a map that readers share without a lock, not a label lookup that builds strings.
	// A route keeps its own (route.metrics); the map serves requests no route matched.
	routes sync.Map // route name → *routeMetrics
}

// latencyBuckets are the upper bounds of the latency histogram.
var latencyBuckets = [...]time.Duration{
	500 * time.Microsecond, time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond,
	250 * time.Millisecond, 500 * time.Millisecond, time.Second, 2500 * time.Millisecond, 10 * time.Second,
}

// routeMetrics are one route's series, made on its first request: a route never requested has
// none.
type routeMetrics struct {
	name     string
	latency  []latencyShard
	requests sync.Map // status → *counter
}

// latencyShard is a part of a route's latency histogram: per bucket (the last one above every
// bound) the requests it counted, and their summed duration. The padding keeps neighbouring
// shards off its cache lines.
type latencyShard struct {
	buckets [len(latencyBuckets) + 1]atomic.Uint64
	nanos   atomic.Int64
	_       [8]byte
}

// counter is a request count in shards, each on a cache line of its own.
type counter []struct {
	n atomic.Uint64
	_ [56]byte
}

// sum is the count over the shards.
func (c counter) sum() uint64 {
	var n uint64
	for i := range c {
		n += c[i].n.Load()
	}
	return n
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewDesc("curvekit_http_requests_total", "HTTP requests by route and status.", []string{"route", "status"}, nil),
		latency: prometheus.NewDesc("curvekit_http_request_duration_seconds",
			"Time to answer an HTTP request, by route (a stream counts until it ends).", []string{"route"}, nil),
		shards: shardsFor(runtime.GOMAXPROCS(0)),
	}
	if err := reg.Register(m); err != nil {
		return nil, err
	}
	return m, nil
}

// shardsFor is how many shards spread the writes of procs cores: twice as many, a power of two
// from 4 to 64.
func shardsFor(procs int) int {
	n := 4
	for n < 2*procs && n < 64 {
		n *= 2
	}
	return n
}

// route returns the series of the route named name.
func (m *metrics) route(name string) *routeMetrics {
	v, ok := m.routes.Load(name)
	if !ok {
		v, _ = m.routes.LoadOrStore(name, &routeMetrics{name: name, latency: make([]latencyShard, m.shards)})
	}
	return v.(*routeMetrics)
}

// observe counts a request answered with status after d; rt is its route, nil when none matched.
func (m *metrics) observe(rt *route, status int, d time.Duration) {
	var rm *routeMetrics
	if rt != nil && rt.metrics != nil {
		rm = rt.metrics
	} else {
		rm = m.route(routeName(rt))
	}
	c, ok := rm.requests.Load(status)
	if !ok {
		c, _ = rm.requests.LoadOrStore(status, make(counter, m.shards))
	}
	i := rand.Uint32() & uint32(m.shards-1)
	c.(counter)[i].n.Add(1)
	b := 0
	for b < len(latencyBuckets) && d > latencyBuckets[b] {
		b++
	}
	s := &rm.latency[i]
	s.buckets[b].Add(1)
	s.nanos.Add(int64(d))
}

// Describe implements prometheus.Collector.
func (m *metrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- m.requests
	ch <- m.latency
}

// Collect implements prometheus.Collector: each route's requests by status, and its latency
// histogram once it counted a request.
func (m *metrics) Collect(ch chan<- prometheus.Metric) {
	m.routes.Range(func(_, v any) bool {
		rm := v.(*routeMetrics)
		rm.requests.Range(func(k, c any) bool {
			ch <- prometheus.MustNewConstMetric(m.requests, prometheus.CounterValue, float64(c.(counter).sum()), rm.name, strconv.Itoa(k.(int)))
			return true
		})
		var (
			per   [len(latencyBuckets) + 1]uint64
			nanos int64
		)
		for i := range rm.latency {
			s := &rm.latency[i]
			for b := range per {
				per[b] += s.buckets[b].Load()
			}
			nanos += s.nanos.Load()
		}
		var count uint64
		cumulative := make(map[float64]uint64, len(latencyBuckets))
		for b, bound := range latencyBuckets {
			count += per[b]
			cumulative[bound.Seconds()] = count
		}
		count += per[len(latencyBuckets)]
		if count > 0 {
			ch <- prometheus.MustNewConstHistogram(m.latency, count, time.Duration(nanos).Seconds(), cumulative, rm.name)
		}
		return true
	})
}
