package httpapi

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the API's Prometheus collectors: requests by route and status, and latency by
// route. The route label is the route table's name ("GET /tokens/:address"), never the raw path,
// so label cardinality is bounded by the table.
type metrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec

	// The collectors of each route (and status) once looked up: a request's observation is a
	// read of a map that readers share without a lock, not a label lookup that builds strings.
	// A route keeps its own (route.metrics); the map serves requests no route matched.
	routes sync.Map // route name → *routeMetrics
}

// routeMetrics are one route's collectors, made on its first request: a route never requested
// has no series.
type routeMetrics struct {
	name     string
	once     sync.Once
	latency  prometheus.Observer
	requests sync.Map // status → prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "curvekit", Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests by route and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "curvekit", Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route (a stream counts until it ends).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10},
		}, []string{"route"}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.latency} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// route returns the collectors of the route named name.
func (m *metrics) route(name string) *routeMetrics {
	v, ok := m.routes.Load(name)
	if !ok {
		v, _ = m.routes.LoadOrStore(name, &routeMetrics{name: name})
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
	rm.once.Do(func() { rm.latency = m.latency.WithLabelValues(rm.name) })
	c, ok := rm.requests.Load(status)
	if !ok {
		c, _ = rm.requests.LoadOrStore(status, m.requests.WithLabelValues(rm.name, strconv.Itoa(status)))
	}
	c.(prometheus.Counter).Inc()
	rm.latency.Observe(d.Seconds())
}
