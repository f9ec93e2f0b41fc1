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
	// Replica is this server's part among replicas, on GET /readyz.
	Replica *Replica `json:"replica,omitempty"`
}

// Replica is what one server does among replicas sharing a store, as GET /readyz shows it.
type Replica struct {
	// Role is "leader" (it runs the indexer), "follower" (it follows the store and may take
	// over) or "api-only" (kept out of the election).
	Role string `json:"role"`
	// Holder names this replica in the indexer's lease.
	Holder string `json:"holder"`
	// Term is the lease's term and LeaderSince its start, while this replica leads.
	Term        uint64     `json:"term,omitempty"`
	LeaderSince *time.Time `json:"leaderSince,omitempty"`
	// Block is the last block of the store this replica's streams and caches have taken in.
	Block uint64 `json:"block"`
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
	if s.cfg.Replica != nil {
		r := s.cfg.Replica()
		out.Replica = &r
	}
	return writeJSON(w, status, out)
}
