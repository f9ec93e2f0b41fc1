package httpapi

import (
	"github.com/curvekit/curvekit"

	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/ratelimit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/stream"
	"github.com/curvekit/curvekit/txbuild"
)

// streamEnv is the API with streams over the fake store, on a real socket.
type streamEnv struct {
	store   *fakeStore
	svc     *market.Service
	hub     *stream.Hub
	feed    *stream.Feed
	limiter *countLimiter
	srv     *httptest.Server
}

type streamOptions struct {
	buffer       int
	heartbeat    time.Duration
	writeTimeout time.Duration
	// memoryLimiter serves with the server's in-memory limiter instead of the recording one
	// (which keeps every key it is asked: a cost per request that the server does not have).
	memoryLimiter bool
}

func newStreamEnv(t testing.TB, o streamOptions) *streamEnv {
	t.Helper()
	eth, tusd, grad, trades := fixtureTokens(t)
	store := newFakeStore()
	store.add(eth, trades...)
	store.add(tusd)
	store.add(grad)
	clock := func() time.Time { return time.Unix(now, 0) }
	b, err := txbuild.New(txbuild.Config{ChainID: 1337, Factory: factoryAddr, Router: routerAddr, WETH: wethAddr, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := market.NewService(market.ServiceConfig{Store: store, Builder: b, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	hub, err := stream.NewHub(stream.HubConfig{Buffer: o.buffer})
	if err != nil {
		t.Fatal(err)
	}
	feed, err := stream.NewFeed(stream.FeedConfig{Hub: hub, Store: store, Market: svc, Codec: StreamCodec(), Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	streams, err := stream.New(stream.Config{Hub: hub, Store: store, Market: svc, Codec: StreamCodec(), Heartbeat: o.heartbeat, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	lim := newCountLimiter()
	var limiter auth.Limiter = lim
	if o.memoryLimiter {
		if limiter, err = ratelimit.NewMemory(ratelimit.MemoryConfig{}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(Config{
		Market: svc, Streams: streams, Limiter: limiter, Policy: auth.DefaultPolicy(auth.Every(100_000, time.Minute)),
		StreamWriteTimeout: o.writeTimeout, Logger: log,
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hub.Close() // ends the streams, so that Close does not wait for them
		srv.Close()
	})
	return &streamEnv{store: store, svc: svc, hub: hub, feed: feed, limiter: lim, srv: srv}
}

// sseEvent is one dispatched event, or a comment.
type sseEvent struct {
	id, name, data string
	comment, clear bool // clear: an empty id field
}

// sseClient reads an event stream the way EventSource does: fields accumulate until a blank line
// dispatches them.
type sseClient struct {
	t    *testing.T
	resp *http.Response
	r    *bufio.Reader
}

func (e *streamEnv) open(t *testing.T, path string, header ...string) *sseClient {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	c := &sseClient{t: t, resp: resp, r: bufio.NewReader(resp.Body)}
	t.Cleanup(c.close)
	return c
}

func (c *sseClient) close() { c.resp.Body.Close() }

// next returns the next event or comment.
func (c *sseClient) next() sseEvent {
	c.t.Helper()
	var ev sseEvent
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			c.t.Fatalf("stream ended: %v", err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			if ev.comment || ev.name != "" || ev.data != "" {
				return ev
			}
		case strings.HasPrefix(line, ":"):
			ev.comment = true
		case line == "id:":
			ev.id, ev.clear = "", true
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			ev.data += line[6:]
		default:
			c.t.Fatalf("unexpected line %q", line)
		}
	}
}

// event returns the next event, skipping comments.
func (c *sseClient) event() sseEvent {
	c.t.Helper()
	for {
		if ev := c.next(); !ev.comment {
			return ev
		}
	}
}

func TestStreamHeadersAndOpening(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{})
	c := e.open(t, "/tokens/"+ethToken.Hex()+"/stream?res=1h")
	if c.resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", c.resp.StatusCode)
	}
	for h, want := range map[string]string{
		"Content-Type": "text/event-stream", "Cache-Control": "no-cache", "X-Accel-Buffering": "no",
	} {
		if got := c.resp.Header.Get(h); got != want {
			t.Errorf("%s: %q, want %q", h, got, want)
		}
	}
	ev := c.event()
	var r resetJSON
	if err := json.Unmarshal([]byte(ev.data), &r); err != nil || ev.name != "reset" || !ev.clear {
		t.Fatalf("first event %+v (%v)", ev, err)
	}
	if r.Reason != "connect" || r.Resolution != candles.Res1h || !r.Full || r.Token != ethToken.Hex() {
		t.Fatalf("reset %+v", r)
	}
	// The replay's bar is the REST bar, byte for byte, and carries the replay's id.
	bar := c.event()
	var series seriesJSON
	e.getJSON(t, "/tokens/"+ethToken.Hex()+"/candles?res=1h&from="+itoa(r.From)+"&to="+itoa(r.From), &series)
	want, _ := compact(series.Bars[0])
	if bar.name != "bar" || bar.data != string(want) || bar.id == "" {
		t.Fatalf("bar %+v, want data %s", bar, want)
	}
	if n := len(e.limiter.seen()); n != 2 { // the stream and the candles request
		t.Fatalf("limiter saw %d requests", n)
	}

	// Any other resolution is 5m.
	c = e.open(t, "/tokens/"+ethToken.Hex()+"/stream?res=7m")
	if ev := c.event(); !strings.Contains(ev.data, `"resolution":"5m"`) {
		t.Fatalf("reset %s", ev.data)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

func (e *streamEnv) getJSON(t *testing.T, path string, v any) {
	t.Helper()
	resp, err := http.Get(e.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

func TestStreamErrorsBeforeTheStream(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{})
	te := &testEnv{srv: e.srv}
	te.get(t, "/tokens/0x1234/stream").want(t, http.StatusBadRequest,
		`{"statusCode": 400, "message": "malformed token address: want 0x followed by 40 hex digits","code":"VALIDATION_FAILED"}`)
	te.get(t, "/tokens/"+nobody.Hex()+"/stream").want(t, http.StatusNotFound,
		`{"statusCode": 404, "message": "token not found"}`)
	te.get(t, "/tokens/"+ethToken.Hex()+"/stream?from=yesterday").want(t, http.StatusBadRequest,
		`{"statusCode": 400, "message": "from must be an integer from 1 to 1000000000000","code":"VALIDATION_FAILED"}`)
	te.get(t, "/tokens/"+ethToken.Hex()+"/stream?res=1m&res=5m").want(t, http.StatusBadRequest,
		`{"statusCode": 400, "message": "res given more than once","code":"VALIDATION_FAILED"}`)
	r := te.do(t, http.MethodPost, "/tokens/stream", "")
	if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET, HEAD" {
		t.Fatalf("POST /tokens/stream: %d %q", r.status, r.header.Get("Allow"))
	}
	if n := e.hub.Subscribers(stream.TokenTopic(nobody)); n != 0 {
		t.Fatalf("%d subscribers left by a 404", n)
	}
}

func TestStreamWithoutStreamsIsNotRouted(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.get(t, "/tokens/"+ethToken.Hex()+"/stream").want(t, http.StatusNotFound,
		`{"statusCode": 404, "message": "route GET /tokens/`+ethToken.Hex()+`/stream not found"}`)
}

func TestStreamHeartbeatAndDisconnect(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{heartbeat: 20 * time.Millisecond})
	c := e.open(t, "/tokens/"+tusdToken.Hex()+"/stream")
	if ev := c.event(); ev.name != "reset" {
		t.Fatalf("first event %+v", ev)
	}
	for range 3 {
		if ev := c.next(); !ev.comment {
			t.Fatalf("got %+v, want a heartbeat comment", ev)
		}
	}
	topic := stream.TokenTopic(tusdToken)
	if n := e.hub.Subscribers(topic); n != 1 {
		t.Fatalf("%d subscribers", n)
	}
	c.close()
	waitFor(t, func() bool { return e.hub.Subscribers(topic) == 0 }, "the handler to unsubscribe after the client left")
}

func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A trade the indexer commits reaches the token stream as trade and bar (the shapes of /trades and
// /candles) and the global stream as tick and refresh.
func TestStreamLiveEvents(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{})
	tok := e.store.tokens[tusdToken]
	c := e.open(t, "/tokens/"+tusdToken.Hex()+"/stream?res=1m")
	g := e.open(t, "/tokens/stream")
	if ev := g.event(); ev.name != "refresh" || ev.data != `{"reason":"connect","block":null}` {
		t.Fatalf("global opening %+v", ev)
	}
	if ev := c.event(); ev.name != "reset" {
		t.Fatalf("token opening %+v", ev)
	}

	tr := fixtureTrade(tusdToken, 300, 4, now-30, curvekit.Buy, wei(20, 6), wei(5_000, 18))
	tr.BlockHash = common.HexToHash("0xabcdef01")
	tok.LastTradeAt = tr.Time
	e.store.add(tok, tr)
	e.feed.Apply(market.Sync{Batch: &market.Batch{Cursor: market.Cursor{Block: 300}, Trades: []market.Trade{tr}, Updates: []market.Token{tok}}, Cursor: market.Cursor{Block: 300}})

	wantID := stream.IDOf(&tr, tr.Time).String()
	var trades tradeListJSON
	e.getJSON(t, "/tokens/"+tusdToken.Hex()+"/trades", &trades)
	wantTrade, _ := compact(trades.Trades[0])
	if ev := c.event(); ev.name != "trade" || ev.id != wantID || ev.data != string(wantTrade) {
		t.Fatalf("trade %+v, want %s", ev, wantTrade)
	}
	var series seriesJSON
	e.getJSON(t, "/tokens/"+tusdToken.Hex()+"/candles?res=1m&from="+itoa(tr.Time)+"&to="+itoa(tr.Time), &series)
	wantBar, _ := compact(series.Bars[0])
	if ev := c.event(); ev.name != "bar" || ev.id != wantID || ev.data != string(wantBar) {
		t.Fatalf("bar %+v, want %s", ev, wantBar)
	}

	tick := g.event()
	if tick.name != "tick" || tick.id != wantID {
		t.Fatalf("tick %+v", tick)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(tick.data), &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"token", "phase", "price", "change24h", "marketCap", "liquidity", "progressBps", "volume24h", "reserves", "poolReserves", "block", "logIndex", "time"} {
		if _, ok := got[k]; !ok {
			t.Errorf("tick lacks %s: %s", k, tick.data)
		}
	}
	if got["token"] != tusdToken.Hex() || got["block"] != float64(300) || got["logIndex"] != float64(4) {
		t.Fatalf("tick %s", tick.data)
	}
	if ev := g.event(); ev.name != "refresh" || ev.id != wantID || ev.data != `{"reason":"trades","block":300}` {
		t.Fatalf("refresh %+v", ev)
	}

	// Resuming with the trade's id replays its bucket and no trade.
	r := e.open(t, "/tokens/"+tusdToken.Hex()+"/stream?res=1m", "Last-Event-ID", wantID)
	if ev := r.event(); ev.name != "reset" || !strings.Contains(ev.data, `"reason":"resume"`) {
		t.Fatalf("resume %+v", ev)
	}
	if ev := r.event(); ev.name != "bar" || ev.data != string(wantBar) || ev.id != wantID {
		t.Fatalf("resumed bar %+v", ev)
	}
	// A malformed one gets a full rebuild.
	r = e.open(t, "/tokens/"+tusdToken.Hex()+"/stream?res=1m", "Last-Event-ID", "bogus")
	if ev := r.event(); ev.name != "reset" || !strings.Contains(ev.data, `"reason":"unknown-id"`) || !strings.Contains(ev.data, `"full":true`) {
		t.Fatalf("bad id %+v", ev)
	}
}

// A client that stops reading loses its stream (the hub cuts it off, or its write deadline
// passes) while another client on the same token gets every event and the publisher never waits.
func TestSlowClientIsCutOff(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{buffer: 64, writeTimeout: 200 * time.Millisecond})
	topic := stream.TokenTopic(tusdToken)
	slow := e.open(t, "/tokens/"+tusdToken.Hex()+"/stream")
	fast := e.open(t, "/tokens/"+tusdToken.Hex()+"/stream")
	slow.event()
	fast.event()
	waitFor(t, func() bool { return e.hub.Subscribers(topic) == 2 }, "both subscribers")

	const n = 200
	big := `"` + strings.Repeat("x", 64<<10) + `"` // 200 of these outgrow any socket buffer
	acks := make(chan int, n)
	go func() {
		defer close(acks) // a failed read ends the test instead of leaving it waiting
		count := 0
		for count < n {
			if ev := fast.event(); ev.name == "bar" {
				count++
				acks <- count
			}
		}
	}()
	received := 0
	for i := 1; i <= n; i++ {
		// The fast client stays within half its buffer; the slow one never reads.
		for received < i-32 {
			received = ack(t, acks)
		}
		id := stream.ID{Pos: stream.Pos{Block: uint64(1000 + i)}, Time: now, Tag: 1}
		m := &stream.Message{Kind: stream.KindTrade, ID: id, IDText: id.String(), Data: []byte(`{}`)}
		for r := range m.Bars {
			m.Bars[r].Bar.Bar = candles.Bar{Time: candles.Res1d.Bucket(now)}
			m.Bars[r].Bar.Data = []byte(big)
		}
		e.hub.Publish(topic, m) // never waits for the slow client
	}
	for received < n {
		received = ack(t, acks)
	}
	waitFor(t, func() bool { return e.hub.Subscribers(topic) == 1 }, "the slow client to be cut off")
	// The slow client reads what made it into its socket, then the end of the stream.
	_, err := io.Copy(io.Discard, slow.resp.Body)
	if err != nil && !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("slow client: %v", err)
	}
}

// ack returns the fast client's next count, failing the test when its reader stopped.
func ack(t *testing.T, acks <-chan int) int {
	t.Helper()
	n, ok := <-acks
	if !ok {
		t.Fatal("the fast client's stream ended")
	}
	return n
}

func TestStreamShutdown(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{})
	c := e.open(t, "/tokens/stream")
	c.event()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, c.resp.Body)
		close(done)
	}()
	e.hub.Close()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the stream outlived the hub")
	}
}

// A resume rebuilds the whole window by default (SPEC 6.2): a full reset that keeps the client's
// id, then exactly the bars /candles has; with resume=partial, only the resumed bucket.
func TestStreamResumeModes(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{})
	path := "/tokens/" + ethToken.Hex() + "/stream?res=1h&from=1799800000"
	c := e.open(t, path)
	if ev := c.event(); ev.name != "reset" {
		t.Fatalf("opening %+v", ev)
	}
	var bars []string
	id := ""
	for id == "" {
		ev := c.event()
		bars = append(bars, ev.data)
		id = ev.id
	}
	c.close()
	var series seriesJSON
	e.getJSON(t, "/tokens/"+ethToken.Hex()+"/candles?res=1h&from=1799800000&to=1799996400", &series)
	if len(series.Bars) != len(bars) || len(bars) < 40 {
		t.Fatalf("connect replayed %d bars, /candles has %d", len(bars), len(series.Bars))
	}

	r := e.open(t, path, "Last-Event-ID", id)
	ev := r.event()
	var rs resetJSON
	if err := json.Unmarshal([]byte(ev.data), &rs); err != nil || ev.name != "reset" || rs.Reason != "resume" || !rs.Full || ev.clear || ev.id != "" {
		t.Fatalf("default resume %+v (%v)", ev, err)
	}
	for i, b := range series.Bars {
		want, _ := compact(b)
		if ev := r.event(); ev.name != "bar" || ev.data != string(want) {
			t.Fatalf("bar %d: %+v, want %s", i, ev, want)
		}
	}

	r = e.open(t, path+"&resume=partial", "Last-Event-ID", id)
	ev = r.event()
	if err := json.Unmarshal([]byte(ev.data), &rs); err != nil || rs.Reason != "resume" || rs.Full || rs.From != 1799996400 {
		t.Fatalf("partial resume %+v (%v)", ev, err)
	}
	want, _ := compact(series.Bars[len(series.Bars)-1])
	if ev := r.event(); ev.name != "bar" || ev.data != string(want) || ev.id != id {
		t.Fatalf("partial resume bar %+v", ev)
	}

	te := &testEnv{srv: e.srv}
	te.get(t, path+"&resume=maybe").want(t, http.StatusBadRequest,
		`{"statusCode": 400, "message": "resume must be full or partial","code":"VALIDATION_FAILED"}`)
}

// A Last-Event-ID the server cannot vouch for - a huge time, a time in the future, the real
// trade's id with its time moved 30 days ahead - opens the stream with a full rebuild: never a
// 500, never a 400, never a bar after the present.
func TestStreamHostileLastEventID(t *testing.T) {
	t.Parallel()
	e := newStreamEnv(t, streamOptions{})
	path := "/tokens/" + ethToken.Hex() + "/stream?res=1m"
	c := e.open(t, path)
	c.event()
	real, err := stream.ParseID(c.event().id)
	if err != nil {
		t.Fatal(err)
	}
	c.close()
	huge, future, moved := real, real, real
	huge.Time = 1<<63 - 1
	future.Time = now + 60
	moved.Time += 30 * 24 * 3600
	for _, id := range []string{huge.String(), future.String(), moved.String(), "1-1-999999999999999999-00000000"} {
		for _, mode := range []string{"", "&resume=partial"} {
			r := e.open(t, path+mode, "Last-Event-ID", id)
			if r.resp.StatusCode != http.StatusOK {
				t.Fatalf("id %s: status %d", id, r.resp.StatusCode)
			}
			ev := r.event()
			if ev.name != "reset" || !ev.clear || !strings.Contains(ev.data, `"reason":"unknown-id"`) || !strings.Contains(ev.data, `"full":true`) {
				t.Fatalf("id %s: first event %+v", id, ev)
			}
			for ev.id == "" {
				ev = r.event()
				var b struct{ Time int64 }
				if err := json.Unmarshal([]byte(ev.data), &b); err != nil || ev.name != "bar" || b.Time > now {
					t.Fatalf("id %s: %+v after the present %d", id, ev, now)
				}
			}
			r.close()
		}
	}
}
