package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bunrouter"
)

// ReadyCheck is one readiness condition: nil when it holds. GET /readyz is public, so what it
// says of a failure is words only: the Reason of an *Unready, or "<name> unavailable". The error
// itself (a dial error names a URL, a host and a port) goes to the log, once each time the
// check's state changes: failing, failing otherwise (another reason, its figures aside),
// recovered.
type ReadyCheck struct {
	Name  string
	Check func(ctx context.Context) error
}

// Unready is a failed readiness check: Reason is said to anyone ("chain node unreachable"), Err
// only to the log.
type Unready struct {
	Reason string
	Err    error
}

func (u *Unready) Error() string {
	if u.Err == nil {
		return u.Reason
	}
	return u.Reason + ": " + u.Err.Error()
}

func (u *Unready) Unwrap() error { return u.Err }

// publicReason is what GET /readyz says of a failed check.
func publicReason(name string, err error) string {
	var u *Unready
	if errors.As(err, &u) {
		return u.Reason
	}
	return name + " unavailable"
}

// readyLog remembers the state each check was last in, so the log has one line per change of
// state (failing, failing otherwise, recovered) however often anyone asks. A check's state is its
// public reason without its figures: "indexer failing since … (3 attempts)" is the state of the
// 4th attempt too, and "indexer is 25 blocks behind the head" that of 26 blocks.
type readyLog struct {
	mu   sync.Mutex
	last map[string]string
}

// readyState is the state a failed check's reason says, its figures left out.
func readyState(reason string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, reason)
}

func (l *readyLog) note(log *slog.Logger, name string, err error) {
	said := "ok"
	if err != nil {
		said = readyState(publicReason(name, err))
	}
	l.mu.Lock()
	prev, seen := l.last[name]
	if l.last == nil {
		l.last = map[string]string{}
	}
	l.last[name] = said
	l.mu.Unlock()
	switch {
	case prev == said || (!seen && err == nil):
	case err == nil:
		log.Info("readiness check recovered", "check", name)
	default:
		log.Warn("readiness check failing", "check", name, "err", err)
	}
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
	// Holder names this replica among replicas: the random part of its name in the indexer's
	// lease, which the log shows whole (host and process) at start.
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
// lists what does not, in words, so a load balancer stops sending traffic to a server whose data
// is stale.
func (s *Server) readyz(w http.ResponseWriter, req bunrouter.Request) error {
	ctx, cancel := context.WithTimeout(req.Context(), 2*time.Second)
	defer cancel()
	out := healthJSON{Status: "ready", Checks: make(map[string]string, len(s.cfg.Ready))}
	status := http.StatusOK
	for _, c := range s.cfg.Ready {
		err := c.Check(ctx)
		s.ready.note(s.log, c.Name, err)
		if err != nil {
			out.Checks[c.Name] = publicReason(c.Name, err)
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
