// Package rpcfault is a JSON-RPC proxy for tests that serves a node as hosted providers do on a
// bad day: eth_getLogs refused above a block range or a result count, bursts of 429, latency,
// connections cut mid-answer, a node that stands some blocks behind the chain (and, as some
// providers do, answers eth_getLogs up to its own head without saying so), and a head that drops
// back some blocks while the test runs, as a load-balanced provider's does when the next request
// lands on a backend behind the others.
package rpcfault

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Config says which faults a Proxy injects; the zero value injects none.
type Config struct {
	// Upstream is the node's JSON-RPC URL.
	Upstream string
	// RangeCap refuses an eth_getLogs over more blocks, as Infura does (-32602).
	RangeCap uint64
	// RangeRefusal, when set, is the message of RangeCap's refusals (code -32000) instead of
	// Infura's: a wording no table of provider errors knows, such as "block range is too wide".
	RangeRefusal string
	// ResultCap refuses an eth_getLogs that answers more logs, as Infura does (-32005).
	ResultCap int
	// After every BurstEvery requests, the next BurstLen answer HTTP 429 as Alchemy does.
	BurstEvery, BurstLen int
	// Latency delays every answer.
	Latency time.Duration
	// DropEvery cuts every DropEvery-th answer in the middle of its body.
	DropEvery int
	// Lag is how many blocks the proxied node trails the upstream's head.
	Lag uint64
	// Unsupported methods are answered -32601 "method not found", as hosted nodes answer
	// the methods they do not serve (eth_simulateV1 on most of them).
	Unsupported []string
}

// Proxy is an http.Handler in front of Config.Upstream.
type Proxy struct {
	cfg    Config
	client *http.Client
	n      atomic.Int64
	// dropped is how many blocks DropBack moved the head back, on top of Config.Lag.
	dropped atomic.Uint64

	mu        sync.Mutex
	counts    map[string]int
	forwarded map[string]int
}

// New returns a proxy for cfg.
func New(cfg Config) *Proxy {
	return &Proxy{cfg: cfg, client: &http.Client{Timeout: 30 * time.Second}, counts: make(map[string]int), forwarded: make(map[string]int)}
}

// Counts says how many faults of each kind the proxy injected: "range", "results", "429",
// "drop", "unsupported", "lag" (a call or a log range past a lagging head) and "lag-header" (a
// header past it, answered null).
func (p *Proxy) Counts() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make(map[string]int, len(p.counts))
	for k, v := range p.counts {
		out[k] = v
	}
	return out
}

// Forwarded says how many single calls of method the proxy passed on to the upstream.
func (p *Proxy) Forwarded(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.forwarded[method]
}

// DropBack moves the node's head back n blocks from now on, on top of Config.Lag, as a
// load-balanced provider's head moves back when requests land on a backend behind the others:
// eth_blockNumber and "latest" answer the lower head, and the blocks above it are unknown again
// (eth_getBlockByNumber answers null) though they were served before. The chain itself does not
// change. DropBack(0) brings the head back.
func (p *Proxy) DropBack(n uint64) { p.dropped.Store(n) }

// lag is how many blocks the node trails the upstream's head now.
func (p *Proxy) lag() uint64 { return p.cfg.Lag + p.dropped.Load() }

func (p *Proxy) count(kind string) {
	p.mu.Lock()
	p.counts[kind]++
	p.mu.Unlock()
}

type request struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      json.RawMessage   `json:"id"`
	Method  string            `json:"method"`
	Params  []json.RawMessage `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	n := int(p.n.Add(1))
	if p.cfg.Latency > 0 {
		time.Sleep(p.cfg.Latency)
	}
	var req request
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) || json.Unmarshal(body, &req) != nil {
		p.forward(w, body) // batches pass as they are
		return
	}
	if p.cfg.BurstEvery > 0 && n%(p.cfg.BurstEvery+p.cfg.BurstLen) >= p.cfg.BurstEvery {
		p.count("429")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":429,"message":"Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message."}}`, req.ID)
		return
	}
	answer, err := p.answer(&req, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if p.cfg.DropEvery > 0 && n%p.cfg.DropEvery == 0 {
		p.count("drop")
		drop(w, answer)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(answer)
}

// drop announces the whole answer and sends half of it, then closes the connection.
func drop(w http.ResponseWriter, answer []byte) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("rpcfault: the server cannot hijack connections")
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(answer))
	buf.Write(answer[:len(answer)/2])
	buf.Flush()
}

// answer is the upstream's answer to req, with the faults that concern its method.
func (p *Proxy) answer(req *request, body []byte) ([]byte, error) {
	reply := func(result any, rerr *rpcError) ([]byte, error) {
		resp := response{JSONRPC: "2.0", ID: req.ID, Error: rerr}
		if rerr == nil {
			raw, err := json.Marshal(result)
			if err != nil {
				return nil, err
			}
			resp.Result = raw
		}
		return json.Marshal(resp)
	}
	if slices.Contains(p.cfg.Unsupported, req.Method) {
		p.count("unsupported")
		return reply(nil, &rpcError{-32601, fmt.Sprintf("the method %s does not exist/is not available", req.Method)})
	}
	p.mu.Lock()
	p.forwarded[req.Method]++
	p.mu.Unlock()
	var head uint64
	lag := p.lag()
	if lag > 0 {
		up, err := p.head()
		if err != nil {
			return nil, err
		}
		head = max(up, lag) - lag
	}
	switch req.Method {
	case "eth_blockNumber":
		if lag > 0 {
			return reply(fmt.Sprintf("0x%x", head), nil)
		}
	case "eth_getBlockByNumber":
		if lag > 0 && len(req.Params) > 0 {
			n, tag := blockParam(req.Params[0])
			switch {
			case tag == "latest" || tag == "pending" || tag == "safe" || tag == "finalized":
				req.Params[0] = json.RawMessage(fmt.Sprintf(`"0x%x"`, head))
				return p.rewritten(req)
			case tag == "" && n > head:
				p.count("lag-header")
				return reply(nil, nil)
			}
		}
	case "eth_call", "eth_getBalance", "eth_getCode":
		if lag > 0 && len(req.Params) > 1 {
			if n, tag := blockParam(req.Params[len(req.Params)-1]); tag == "" && n > head {
				p.count("lag")
				return reply(nil, &rpcError{-32000, "header not found"})
			}
		}
	case "eth_getLogs":
		return p.logs(req, lag, head, reply)
	}
	return p.post(body)
}

// logs serves eth_getLogs with the range and result caps, and clamped to a lagging head.
func (p *Proxy) logs(req *request, lag, head uint64, reply func(any, *rpcError) ([]byte, error)) ([]byte, error) {
	var f map[string]json.RawMessage
	if len(req.Params) != 1 || json.Unmarshal(req.Params[0], &f) != nil {
		return reply(nil, &rpcError{-32602, "invalid argument 0"})
	}
	from, _ := blockParam(f["fromBlock"])
	to, tag := blockParam(f["toBlock"])
	if tag == "" && lag > 0 && to > head {
		// A node behind the range answers what it has, as some providers do.
		p.count("lag")
		if from > head {
			return reply([]any{}, nil)
		}
		to = head
		f["toBlock"] = json.RawMessage(fmt.Sprintf(`"0x%x"`, to))
		raw, _ := json.Marshal(f)
		req.Params[0] = raw
	}
	if tag == "" && p.cfg.RangeCap > 0 && to >= from && to-from+1 > p.cfg.RangeCap {
		p.count("range")
		if p.cfg.RangeRefusal != "" {
			return reply(nil, &rpcError{-32000, p.cfg.RangeRefusal})
		}
		return reply(nil, &rpcError{-32602, fmt.Sprintf("range %d exceeds limit of %d", to-from+1, p.cfg.RangeCap)})
	}
	answer, err := p.rewritten(req)
	if err != nil || p.cfg.ResultCap == 0 {
		return answer, err
	}
	var resp struct {
		Result []json.RawMessage `json:"result"`
	}
	if json.Unmarshal(answer, &resp) == nil && len(resp.Result) > p.cfg.ResultCap {
		p.count("results")
		return reply(nil, &rpcError{-32005, fmt.Sprintf("query returned more than %d results", p.cfg.ResultCap)})
	}
	return answer, nil
}

// head is the upstream's head.
func (p *Proxy) head() (uint64, error) {
	answer, err := p.post([]byte(`{"jsonrpc":"2.0","id":0,"method":"eth_blockNumber","params":[]}`))
	if err != nil {
		return 0, err
	}
	var resp struct {
		Result string `json:"result"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		return 0, err
	}
	return strconv.ParseUint(strings.TrimPrefix(resp.Result, "0x"), 16, 64)
}

// blockParam reads a block number or tag.
func blockParam(raw json.RawMessage) (uint64, string) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return 0, "latest"
	}
	if !strings.HasPrefix(s, "0x") {
		return 0, s
	}
	n, err := strconv.ParseUint(s[2:], 16, 64)
	if err != nil {
		return 0, s
	}
	return n, ""
}

func (p *Proxy) rewritten(req *request) ([]byte, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	return p.post(body)
}

func (p *Proxy) post(body []byte) ([]byte, error) {
	resp, err := p.client.Post(p.cfg.Upstream, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func (p *Proxy) forward(w http.ResponseWriter, body []byte) {
	answer, err := p.post(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(answer)
}
