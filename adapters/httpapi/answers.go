package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/uptrace/bunrouter"
	"golang.org/x/sync/singleflight"

	"github.com/curvekit/curvekit/market"
)

// answers keeps the encoded answers of the discovery reads (GET /tokens in any order, GET
// /tokens/king) between two syncs of the indexer, by path and the parameters the handler reads
// (query.canonical): they read state the syncs
// keep current, so a read that comes again before the next sync, or within market.MemoTTL, is
// answered from memory at the cost of a quote. Only a market service that follows the syncs
// (market.Service.Memoizes) lets answers be kept. Requests that miss the same answer at once
// wait for one computation of it (a burst after a sync asks the store once).
type answers struct {
	mu     sync.RWMutex
	m      map[string]answer
	bytes  int // of the keys and bodies in m
	flight singleflight.Group
}

type answer struct {
	body []byte
	gen  uint64
	at   time.Time
}

// maxAnswers and maxAnswerBytes bound the answers kept (a page of 50 tokens is about 25 KB):
// requests that each ask something new (a client's every-page query, or a hostile one's) cost
// the store's work, not the server's memory. A full store first lets go of the answers no
// request may be given any more, and starts over when that is not enough.
const (
	maxAnswers     = 4096
	maxAnswerBytes = 8 << 20
)

// serve answers req from memory when it can; otherwise it runs compute, keeps the encoded
// answer when compute succeeds, and writes it.
func (a *answers) serve(w http.ResponseWriter, req bunrouter.Request, key string, m *market.Service, compute func() (any, error)) error {
	if !m.Memoizes() {
		v, err := compute()
		if err != nil {
			return err
		}
		return writeJSON(w, http.StatusOK, v)
	}
	gen, now := m.Syncs(), time.Now()
	a.mu.RLock()
	e, ok := a.m[key]
	a.mu.RUnlock()
	if !ok || e.gen != gen || now.Sub(e.at) >= market.MemoTTL {
		fresh := func() (any, error) {
			v, err := compute()
			if err != nil {
				return nil, err
			}
			enc := encoders.Get().(*jsonEncoder)
			if err := enc.enc.Encode(v); err != nil {
				enc.put()
				return nil, err
			}
			e := answer{body: append([]byte(nil), enc.buf.Bytes()...), gen: gen, at: now}
			enc.put()
			if m.Syncs() == gen {
				a.mu.Lock()
				a.keep(key, e)
				a.mu.Unlock()
			}
			return e, nil
		}
		v, err, _ := a.flight.Do(key+"#"+strconv.FormatUint(gen, 10), fresh)
		if err != nil && req.Context().Err() == nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			// The request that computed it went away; this one is still here.
			v, err = fresh()
		}
		if err != nil {
			return err
		}
		e = v.(answer)
	}
	h := w.Header()
	h["Content-Type"] = applicationJSON
	h["X-Content-Type-Options"] = nosniff
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(e.body)
	return err
}

// keep stores e under key within maxAnswers and maxAnswerBytes (a.mu held).
func (a *answers) keep(key string, e answer) {
	size := len(key) + len(e.body)
	if size > maxAnswerBytes {
		return
	}
	if a.m == nil {
		a.m = make(map[string]answer)
	}
	if old, ok := a.m[key]; ok {
		a.bytes -= len(key) + len(old.body)
		delete(a.m, key)
	}
	full := func() bool { return len(a.m) >= maxAnswers || a.bytes+size > maxAnswerBytes }
	if full() {
		for k, o := range a.m {
			if o.gen != e.gen || e.at.Sub(o.at) >= market.MemoTTL {
				a.bytes -= len(k) + len(o.body)
				delete(a.m, k)
			}
		}
		if full() {
			a.m, a.bytes = make(map[string]answer), 0
		}
	}
	a.m[key] = e
	a.bytes += size
}
