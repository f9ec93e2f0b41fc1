package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/uptrace/bunrouter"
)

// ReadyCheck is one readiness condition: nil when it holds, else an error whose message an
// operator may read (GET /readyz is for orchestrators and operators, and names what failed).
type ReadyCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

type healthJSON struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks,omitempty"`
}

// GET /healthz: the process serves HTTP.
func (s *Server) healthz(w http.ResponseWriter, _ bunrouter.Request) error {
	return writeJSON(w, http.StatusOK, healthJSON{Status: "ok"})
}

// GET /readyz: every ReadyCheck holds (the store answers, the indexer is close to the head). 503
// lists what does not, so a load balancer stops sending traffic to a server whose data is stale.
func (s *Server) readyz(w http.ResponseWriter, req bunrouter.Request) error {
	ctx, cancel := context.WithTimeout(req.Context(), 2*time.Second)
	defer cancel()
	out := healthJSON{Status: "ready", Checks: make(map[string]string, len(s.cfg.Ready))}
	status := http.StatusOK
	for _, c := range s.cfg.Ready {
		if err := c.Check(ctx); err != nil {
			out.Checks[c.Name] = err.Error()
			out.Status, status = "not ready", http.StatusServiceUnavailable
			continue
		}
		out.Checks[c.Name] = "ok"
	}
	return writeJSON(w, status, out)
}
