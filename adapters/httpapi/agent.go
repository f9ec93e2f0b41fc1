package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/agent"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/stream"
)

// agentRoutes are the agent's endpoints (SPEC 4.3, 6.3), routed when the server has an Agent:
// jobs for API keys, the streamed prompt and memory for sessions. A read-only key still plans:
// nothing here signs; but its turns and tool calls cannot change the wallet's memory, which
// steers the trades its owner composes later.
func (s *Server) agentRoutes() []group {
	if s.cfg.Agent == nil {
		return nil
	}
	const job = "job not found"
	return []group{{prefix: "/agent", routes: []route{
		{method: http.MethodPost, path: "/job", access: Key, class: auth.ClassDefault, handle: s.submitJob},
		{method: http.MethodGet, path: "/job/:id", access: Key, class: auth.ClassDefault, handle: s.getJob, notFound: job},
		{method: http.MethodPost, path: "/job/:id/cancel", access: Key, class: auth.ClassDefault, handle: s.cancelJob, notFound: job},
		{method: http.MethodPost, path: "/prompt", access: Session, class: auth.ClassDefault, handle: s.prompt, lasting: true},
		{method: http.MethodGet, path: "/memory", access: Session, class: auth.ClassDefault, handle: s.listMemory},
		{method: http.MethodDelete, path: "/memory/:key", access: Session, class: auth.ClassDefault, handle: s.deleteMemory, notFound: "memory not found"},
	}}}
}

// promptBody is the body of POST /agent/job and POST /agent/prompt.
type promptBody struct {
	Prompt   *string          `json:"prompt" openapi:"required"`
	ThreadID string           `json:"threadId"`
	History  []historyMessage `json:"history"`
	Model    string           `json:"model"`
}

type historyMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func (b *promptBody) history() []agent.Message {
	if len(b.History) == 0 {
		return nil
	}
	out := make([]agent.Message, len(b.History))
	for i, m := range b.History {
		out[i] = agent.Message{Role: agent.Role(m.Role), Content: m.Content}
	}
	return out
}

func readPrompt(w http.ResponseWriter, req bunrouter.Request) (promptBody, error) {
	var body promptBody
	if err := decodeJSON(w, req.Request, &body); err != nil {
		return body, err
	}
	if body.Prompt == nil {
		return body, invalid("prompt is required")
	}
	return body, nil
}

// jobJSON is a job as agent-API clients poll it: times are RFC 3339 UTC with milliseconds,
// processingTime milliseconds; error appears only on a failed job, the other times once set.
type jobJSON struct {
	JobID          string             `json:"jobId"`
	ThreadID       string             `json:"threadId"`
	Status         agent.Status       `json:"status"`
	Prompt         string             `json:"prompt"`
	CreatedAt      string             `json:"createdAt"`
	Cancellable    bool               `json:"cancellable"`
	StatusUpdates  []statusUpdateJSON `json:"statusUpdates"`
	StartedAt      string             `json:"startedAt,omitempty"`
	CompletedAt    string             `json:"completedAt,omitempty"`
	CancelledAt    string             `json:"cancelledAt,omitempty"`
	ProcessingTime *int64             `json:"processingTime,omitempty"`
	Response       string             `json:"response"`
	RichData       []agent.Item       `json:"richData"`
	Error          string             `json:"error,omitempty"`
}

type statusUpdateJSON struct {
	Message   string `json:"message"`
	Timestamp string `json:"timestamp"`
}

const jobTime = "2006-01-02T15:04:05.000Z07:00"

func timeOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(jobTime)
}

func jobOf(j *agent.Job) jobJSON {
	out := jobJSON{
		JobID: j.ID, ThreadID: j.ThreadID, Status: j.Status, Prompt: j.Prompt, CreatedAt: timeOrEmpty(j.CreatedAt),
		Cancellable: j.Cancellable(), StatusUpdates: make([]statusUpdateJSON, len(j.StatusUpdates)),
		StartedAt: timeOrEmpty(j.StartedAt), CompletedAt: timeOrEmpty(j.CompletedAt), CancelledAt: timeOrEmpty(j.CancelledAt),
		Response: j.Response, RichData: j.RichData, Error: j.Error,
	}
	for i, u := range j.StatusUpdates {
		out.StatusUpdates[i] = statusUpdateJSON{Message: u.Message, Timestamp: timeOrEmpty(u.Timestamp)}
	}
	if out.RichData == nil {
		out.RichData = []agent.Item{}
	}
	if !j.CompletedAt.IsZero() {
		ms := j.ProcessingTime().Milliseconds()
		out.ProcessingTime = &ms
	}
	return out
}

type jobAcceptedJSON struct {
	JobID    string       `json:"jobId"`
	ThreadID string       `json:"threadId"`
	Status   agent.Status `json:"status"`
}

// POST /agent/job: stores the prompt as a pending job of the key's wallet; a runner takes it.
func (s *Server) submitJob(w http.ResponseWriter, req bunrouter.Request) error {
	body, err := readPrompt(w, req)
	if err != nil {
		return err
	}
	j, err := s.cfg.Agent.Submit(req.Context(), agent.SubmitParams{
		Wallet: principalOf(req).Wallet, ReadOnly: principalOf(req).ReadOnly, Prompt: *body.Prompt, ThreadID: body.ThreadID, History: body.history(), Model: body.Model,
	})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, jobAcceptedJSON{JobID: j.ID, ThreadID: j.ThreadID, Status: j.Status})
}

// GET /agent/job/:id: one read by primary key, polled every couple of seconds.
func (s *Server) getJob(w http.ResponseWriter, req bunrouter.Request) error {
	j, err := s.cfg.Agent.Job(req.Context(), principalOf(req).Wallet, req.Param("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return writeJSON(w, http.StatusOK, jobOf(&j))
}

// POST /agent/job/:id/cancel: only while the job is pending (409 afterwards).
func (s *Server) cancelJob(w http.ResponseWriter, req bunrouter.Request) error {
	j, err := s.cfg.Agent.Cancel(req.Context(), principalOf(req).Wallet, req.Param("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, jobOf(&j))
}

// POST /agent/prompt: the same turn as a job, streamed as SSE events named after agent.EventType.
// A request that fails validation gets a JSON error before any event; once the stream started,
// a failure is the error event. A client that disconnects cancels the turn, and so does the end
// of the session that asked (a logout, its expiry): the stream then ends without its done event.
// promptHeartbeat is the idle time after which a streamed turn sends a heartbeat comment.
var promptHeartbeat = 15 * time.Second

func (s *Server) prompt(w http.ResponseWriter, req bunrouter.Request) error {
	body, err := readPrompt(w, req)
	if err != nil {
		return err
	}
	p := agent.TurnParams{Wallet: principalOf(req).Wallet, ReadOnly: principalOf(req).ReadOnly, Prompt: *body.Prompt, ThreadID: body.ThreadID, History: body.history(), Model: body.Model}
	started := false
	sw := &eventWriter{ResponseWriter: w, info: requestInfo{timeout: s.cfg.StreamWriteTimeout}}
	// The headers wait for the first event, or the first heartbeat: a request the service
	// refuses before planning (at once) still gets its status code, while a model that is slow
	// to answer its first step does not leave the client, or a proxy, with silence. mu orders the
	// heartbeats with the turn's events; the ticker stops before the handler returns.
	var mu sync.Mutex
	start := func() {
		if !started {
			h := w.Header()
			h.Set("Content-Type", "text/event-stream")
			h.Set("Cache-Control", "no-cache")
			h.Set("X-Accel-Buffering", "no")
			h.Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusOK)
			started = true
		}
	}
	stop := make(chan struct{})
	var beats sync.WaitGroup
	beats.Go(func() {
		t := time.NewTicker(promptHeartbeat)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				mu.Lock()
				start()
				_ = sw.Heartbeat()
				mu.Unlock()
			}
		}
	})
	emit := func(e agent.Event) error {
		mu.Lock()
		defer mu.Unlock()
		start()
		data, err := json.Marshal(e.Payload())
		if err != nil {
			return err
		}
		return sw.Write([]stream.Event{{Name: string(e.Type), Data: data}})
	}
	_, err = s.cfg.Agent.Prompt(req.Context(), p, emit)
	close(stop)
	beats.Wait()
	if err == nil || started {
		if err != nil && req.Context().Err() == nil && !errors.Is(err, context.Canceled) {
			s.log.InfoContext(req.Context(), "httpapi: agent turn ended with an error", slog.Any("error", err))
		}
		return nil
	}
	return err
}

type memoryJSON struct {
	Key       string `json:"key"`
	Value     string `json:"value"`
	UpdatedAt string `json:"updatedAt"`
}

type memoriesJSON struct {
	Memories []memoryJSON `json:"memories"`
}

type memoryDeletedJSON struct {
	Key     string `json:"key"`
	Deleted bool   `json:"deleted"`
}

// GET /agent/memory: everything stored for the session's wallet.
func (s *Server) listMemory(w http.ResponseWriter, req bunrouter.Request) error {
	entries, err := s.cfg.Agent.Memories(req.Context(), principalOf(req).Wallet)
	if err != nil {
		return err
	}
	out := make([]memoryJSON, len(entries))
	for i, e := range entries {
		out[i] = memoryJSON{Key: e.Key, Value: e.Value, UpdatedAt: timeOrEmpty(e.UpdatedAt)}
	}
	return writeJSON(w, http.StatusOK, memoriesJSON{Memories: out})
}

// DELETE /agent/memory/:key: 404 for a key the wallet does not have.
func (s *Server) deleteMemory(w http.ResponseWriter, req bunrouter.Request) error {
	key := req.Param("key")
	if err := s.cfg.Agent.Forget(req.Context(), principalOf(req).Wallet, key); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, memoryDeletedJSON{Key: key, Deleted: true})
}
