package auth

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// ErrCredentialEnded is the cause of a held context that ended because its credential did: a
// logout, a revocation, the session's expiry.
var ErrCredentialEnded = errors.New("auth: the credential ended")

// credential names a session or a key.
type credential struct {
	kind Kind
	id   string
}

func credentialOf(p *Principal) (credential, bool) {
	switch {
	case p == nil:
	case p.Kind == KindSession && p.SessionID != "":
		return credential{KindSession, p.SessionID}, true
	case p.Kind == KindKey && p.KeyID != "":
		return credential{KindKey, p.KeyID}, true
	}
	return credential{}, false
}

// holds are the contexts held open by credentials, and the one watcher that checks them.
type holds struct {
	mu       sync.Mutex
	by       map[credential]map[*hold]struct{}
	watching bool
	failing  atomic.Bool // the last check found the store not answering
}

type hold struct {
	cancel context.CancelCauseFunc
}

// Hold returns a context derived from ctx that ends, with the cause ErrCredentialEnded, once the
// credential behind p ends: a logout or a revocation (through any process sharing the store),
// or the session's expiry. Long-lived answers (event streams, a streamed agent turn, remote MCP)
// run under it, so that they do not outlive the credential that opened them. release ends the
// context and lets go of the hold; call it when the answer ends.
//
// A logout or a revocation through this Service ends its holds at once. Every Config.WatchEvery
// one goroutine asks the store about every credential held in this process, in one call, and
// ends the holds of those that no longer authenticate; it runs only while something is held. A
// store that does not answer ends nothing: the next check decides.
func (s *Service) Hold(ctx context.Context, p *Principal) (held context.Context, release context.CancelFunc) {
	c, ok := credentialOf(p)
	if !ok {
		return context.WithCancel(ctx)
	}
	held, cancel := context.WithCancelCause(ctx)
	h := &hold{cancel: cancel}
	s.holds.mu.Lock()
	if s.holds.by == nil {
		s.holds.by = make(map[credential]map[*hold]struct{})
	}
	set := s.holds.by[c]
	if set == nil {
		set = make(map[*hold]struct{}, 1)
		s.holds.by[c] = set
	}
	set[h] = struct{}{}
	if !s.holds.watching {
		s.holds.watching = true
		go s.watch()
	}
	s.holds.mu.Unlock()
	return held, func() {
		cancel(context.Canceled)
		s.holds.mu.Lock()
		if set := s.holds.by[c]; set != nil {
			delete(set, h)
			if len(set) == 0 {
				delete(s.holds.by, c)
			}
		}
		s.holds.mu.Unlock()
	}
}

// Held reports how many contexts this Service holds open.
func (s *Service) Held() int {
	s.holds.mu.Lock()
	defer s.holds.mu.Unlock()
	n := 0
	for _, set := range s.holds.by {
		n += len(set)
	}
	return n
}

// endHolds ends the holds of the credentials cs.
func (s *Service) endHolds(cs ...credential) {
	s.holds.mu.Lock()
	defer s.holds.mu.Unlock()
	for _, c := range cs {
		for h := range s.holds.by[c] {
			h.cancel(ErrCredentialEnded)
		}
		delete(s.holds.by, c)
	}
}

// watch checks the held credentials every WatchEvery until none is held.
func (s *Service) watch() {
	t := time.NewTicker(s.cfg.WatchEvery)
	defer t.Stop()
	for range t.C {
		s.holds.mu.Lock()
		if len(s.holds.by) == 0 {
			s.holds.watching = false
			s.holds.mu.Unlock()
			return
		}
		var ids CredentialIDs
		for c := range s.holds.by {
			if c.kind == KindSession {
				ids.Sessions = append(ids.Sessions, c.id)
			} else {
				ids.Keys = append(ids.Keys, c.id)
			}
		}
		s.holds.mu.Unlock()
		s.check(ids)
	}
}

// check ends the holds of those of ids that no longer authenticate.
func (s *Service) check(ids CredentialIDs) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*s.cfg.WatchEvery)
	defer cancel()
	live, err := s.cfg.Accounts.LiveCredentials(ctx, &LiveCredentialsParams{IDs: ids, At: s.cfg.Now()})
	// A store that stops answering is logged once, and once again when it answers.
	if failing := err != nil; failing != s.holds.failing.Swap(failing) {
		if failing {
			s.cfg.Logger.WarnContext(ctx, "auth: cannot check the credentials of open streams; they stay open until the store answers", slog.Any("error", err))
		} else {
			s.cfg.Logger.InfoContext(ctx, "auth: checking the credentials of open streams again")
		}
	}
	if err != nil {
		return
	}
	var ended []credential
	for _, kind := range []struct {
		kind      Kind
		asked, ok []string
	}{{KindSession, ids.Sessions, live.Sessions}, {KindKey, ids.Keys, live.Keys}} {
		ok := make(map[string]bool, len(kind.ok))
		for _, id := range kind.ok {
			ok[id] = true
		}
		for _, id := range kind.asked {
			if !ok[id] {
				ended = append(ended, credential{kind.kind, id})
			}
		}
	}
	if len(ended) > 0 {
		s.endHolds(ended...)
	}
}
