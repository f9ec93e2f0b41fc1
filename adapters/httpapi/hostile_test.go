package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/auth"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/txbuild"
)

// rawRequest writes req on a new connection to the test server and returns the response, read
// within limit.
func rawRequest(t *testing.T, e *testEnv, write func(net.Conn) error, limit time.Duration) (*http.Response, []byte, time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	_ = conn.SetDeadline(start.Add(limit))
	werr := make(chan error, 1)
	go func() { werr <- write(conn) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no response within %v: %v", limit, err)
	}
	body, _ := io.ReadAll(resp.Body)
	return resp, body, time.Since(start)
}

func wantJSONError(t *testing.T, status int, resp *http.Response, body []byte) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d; body %s", resp.StatusCode, status, body)
	}
	var eb struct {
		StatusCode int             `json:"statusCode"`
		Message    json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(body, &eb); err != nil || eb.StatusCode != status || len(eb.Message) == 0 {
		t.Fatalf("body %q is not {statusCode, message} with %d", body, status)
	}
}

// A path with an encoded NUL or another control character panicked inside bunrouter's lookup,
// outside every middleware. Now it is a JSON 404, nothing is logged as an error, and it counts
// against the client.
func TestControlCharacterPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, path := range []string{
		"/config%00", "/tokens/" + ethToken.Hex() + "/quote%00", "/%00", "/tokens%00/x", "/tokens/%00",
		"/tokens/" + ethToken.Hex() + "%0a/stats", "/config%7f", "/tokens/%01/build-tx",
	} {
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			r := e.do(t, method, path, "")
			if r.status != http.StatusNotFound {
				t.Errorf("%s %s: status %d, body %s", method, path, r.status, r.body)
			}
			r.want(t, http.StatusNotFound, `{"statusCode": 404, "message": "route not found"}`)
		}
	}
	if logs := e.logs.String(); strings.Contains(logs, "level=ERROR") {
		t.Errorf("client input logged as an error:\n%s", logs)
	}
	if n := len(e.limiter.seen()); n != 24 {
		t.Errorf("limiter asked %d times, want 24", n)
	}
}

// A body trickled one byte at a time is cut once the body timeout passes, whether its length was
// announced or it comes in chunks: the handler does not wait for it, the client gets a JSON 408,
// and the connection is closed.
func TestTrickledBodyIsCut(t *testing.T) {
	t.Parallel()
	const timeout = 500 * time.Millisecond
	e := newEnv(t, envOptions{bodyTimeout: timeout})
	body := `{"type": "buy", "amount": "1"}`
	for name, framing := range map[string]struct {
		header string
		chunk  func(b byte) string
	}{
		"length":  {fmt.Sprintf("Content-Length: %d", len(body)), func(b byte) string { return string(b) }},
		"chunked": {"Transfer-Encoding: chunked", func(b byte) string { return "1\r\n" + string(b) + "\r\n" }},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			resp, got, took := rawRequest(t, e, func(c net.Conn) error {
				if _, err := fmt.Fprintf(c, "POST /tokens/%s/build-tx HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n%s\r\n\r\n", ethToken.Hex(), framing.header); err != nil {
					return err
				}
				for i := 0; i < len(body); i++ {
					if _, err := io.WriteString(c, framing.chunk(body[i])); err != nil {
						return err
					}
					time.Sleep(200 * time.Millisecond)
				}
				return nil
			}, 10*time.Second)
			wantJSONError(t, http.StatusRequestTimeout, resp, got)
			if took > timeout+2*time.Second {
				t.Errorf("cut after %v, want about %v", took, timeout)
			}
			if !resp.Close {
				t.Error("the connection stays open after a body timeout")
			}
		})
	}
	t.Cleanup(func() {
		if logs := e.logs.String(); strings.Contains(logs, "level=ERROR") {
			t.Errorf("client fault logged as an error:\n%s", logs)
		}
	})
}

// A middleware in front of the API may wrap every request's body, a GET's too (a recorder
// does). The body deadline still applies only to requests that send a body: net/http reads
// ahead on a connection whose request has no body, and a deadline set under that read would,
// when it passed, cancel the context of the request and of every later one on the connection.
// A GET that outlives the deadline keeps its context, and so does the next on its connection.
func TestBodyDeadlineSparesBodilessRequests(t *testing.T) {
	t.Parallel()
	const timeout = 100 * time.Millisecond
	slow := func(w http.ResponseWriter, req bunrouter.Request) error {
		select {
		case <-req.Context().Done():
			return writeJSON(w, http.StatusOK, map[string]string{"ctx": req.Context().Err().Error()})
		case <-time.After(3 * timeout):
			return writeJSON(w, http.StatusOK, map[string]string{"ctx": "live"})
		}
	}
	e := newEnv(t, envOptions{
		bodyTimeout: timeout,
		wrap: func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.Body = io.NopCloser(r.Body)
				h.ServeHTTP(w, r)
			})
		},
		extra: []group{{prefix: "/test", routes: []route{
			{method: http.MethodGet, path: "/slow", access: Public, class: auth.ClassDefault, handle: slow},
		}}},
	})
	for range 2 { // the second on the first's connection
		e.get(t, "/test/slow").want(t, http.StatusOK, `{"ctx": "live"}`)
	}
}

// A body shorter than its Content-Length, and broken chunked encoding, are the client's fault:
// 400, never 500, never an ERROR line.
func TestBrokenBodiesAre400(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{bodyTimeout: 2 * time.Second})
	path := "/tokens/" + ethToken.Hex() + "/build-tx"
	for name, raw := range map[string]string{
		"truncated":   "POST " + path + " HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"type\": \"buy\"",
		"bad chunk":   "POST " + path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{\"type\"\r\n0\r\n\r\n",
		"short chunk": "POST " + path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n{\"type\": \"buy\"}\r\n0\r\n\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			resp, body, _ := rawRequest(t, e, func(c net.Conn) error {
				_, err := io.WriteString(c, raw)
				// Half-close: the server sees the end of the body early.
				_ = c.(*net.TCPConn).CloseWrite()
				return err
			}, 10*time.Second)
			// build-tx answers validation failures as {error} with 200 (SPEC 4.4).
			if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, body %s", resp.StatusCode, body)
			}
			if !strings.Contains(string(body), "request body is incomplete or malformed") {
				t.Errorf("body %s", body)
			}
		})
	}
	if logs := e.logs.String(); strings.Contains(logs, "level=ERROR") {
		t.Errorf("client fault logged as an error:\n%s", logs)
	}
}

// Every failing query parameter is reported at once, as an array (docs/API.md, Errors).
func TestQueryProblemsAreListed(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	e.get(t, "/tokens?sort=cheapest&limit=0").want(t, http.StatusBadRequest,
		`{"statusCode": 400, "message": ["sort must be one of newest, volume24h, marketCap, progress, trending, gainers1h, gainers24h, losers24h", "limit must be an integer from 1 to 100"],"code":"VALIDATION_FAILED"}`)
	e.get(t, "/tokens?limit=0").want(t, http.StatusBadRequest,
		`{"statusCode": 400, "message": "limit must be an integer from 1 to 100","code":"VALIDATION_FAILED"}`)
}

// An unclean path answers JSON too: a read is sent to the clean path, anything else is a 404
// (a redirected POST would arrive as a GET).
func TestUncleanPaths(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Get(e.srv.URL + "/tokens//" + ethToken.Hex() + "/stats/?x=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "/tokens/" + ethToken.Hex() + "/stats?x=1"
	if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != want ||
		resp.Header.Get("Content-Type") != "application/json" || string(body) != `{"location":"`+want+`"}`+"\n" {
		t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, body)
	}
	e.do(t, http.MethodPost, "/tokens/0//build-tx", "0").want(t, http.StatusNotFound,
		`{"statusCode": 404, "message": "route POST /tokens/0//build-tx not found; the path is not canonical"}`)
}

// cleanPath's fast path agrees with path.Clean on every shape of path.
func TestCleanPathAgreesWithPathClean(t *testing.T) {
	t.Parallel()
	parts := []string{"", ".", "..", "tokens", "a.b", "..x", ".x", "x.", "0xAb"}
	var paths []string
	for _, a := range parts {
		for _, b := range parts {
			for _, c := range parts {
				paths = append(paths, "/"+a, "/"+a+"/"+b, "/"+a+"/"+b+"/"+c, a+"/"+b, "/"+a+"//"+b+"/", "/"+a+"/"+b+"/"+c+"/")
			}
		}
	}
	for _, p := range append(paths, "/", "//", "///x", "x") {
		if got, want := cleanPath(p), path.Clean("/"+p); got != want {
			t.Errorf("cleanPath(%q) = %q, path.Clean says %q", p, got, want)
		}
	}
}

// The query binder reads what url.ParseQuery reads: the same values for every parameter, and a
// malformed query string where it finds an error.
func TestQueryAgreesWithParseQuery(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"", "a=1", "a=1&b=2", "a=1&a=2", "a", "a=", "=1", "&&a=1&", "a=%41", "a=%4", "a%3D=b", "a=1+2",
		"a=1;b=2", "%zz=1", "type=buy&amount=0.5", "a=%E2%82%AC", "a==1", "+=+",
		"a=1&b=2&c=3&d=4", "a=1&b=2&c=3&d=4&e=5&a=6&f=%41&g"} {
		q := newQuery(&url.URL{RawQuery: raw})
		want, err := url.ParseQuery(raw)
		if (err != nil) != (q.err() != nil) {
			t.Errorf("%q: ParseQuery error %v, binder problems %v", raw, err, q.err())
			continue
		}
		if err != nil {
			continue
		}
		got := url.Values{}
		for _, p := range append(q.small[:q.n:q.n], q.more...) {
			got[p[0]] = append(got[p[0]], p[1])
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: binder %v, ParseQuery %v", raw, got, want)
		}
	}
}

// A quote's own JSON is byte for byte what encoding/json writes of quoteOf, whatever its strings,
// amounts and numbers.
func TestQuoteJSONAsEncodingJSON(t *testing.T) {
	t.Parallel()
	big := new(uint256.Int).SetAllOne()
	for i, c := range []struct {
		token        string
		side         curvekit.Side
		venue        curvekit.Venue
		price        float64
		tokDec, qDec uint8
		amounts      [5]*uint256.Int
	}{
		{"0xAAaA000000000000000000000000000000000001", curvekit.Buy, curvekit.VenueCurve, 2.7958993476234855e-08, 18, 18,
			[5]*uint256.Int{uint256.NewInt(1e18), uint256.NewInt(123456789), uint256.NewInt(0), uint256.NewInt(5), big}},
		{"0x7ade000000000000000000000000000000000008", "q\"u<o>te\\ \u2028 é\x01", "p\x00ol", math.Inf(1), 6, 18, [5]*uint256.Int{big, big, big, big, big}},
		{"", "", "", math.NaN(), 0, 0, [5]*uint256.Int{uint256.NewInt(7), uint256.NewInt(0), uint256.NewInt(1), uint256.NewInt(10), uint256.NewInt(100)}},
		{"0x0000000000000000000000000000000000000001", curvekit.Sell, curvekit.VenuePool, 1e21, 6, 6, [5]*uint256.Int{uint256.NewInt(1), uint256.NewInt(1), uint256.NewInt(1), uint256.NewInt(1), uint256.NewInt(1)}},
		{"0xffffffffffffffffffffffffffffffffffffffff", curvekit.Buy, curvekit.VenueCurve, -0.5, 30, 0, [5]*uint256.Int{uint256.NewInt(1), uint256.NewInt(1000), uint256.NewInt(1), uint256.NewInt(1), uint256.NewInt(1)}},
	} {
		v := &market.View{Token: market.Token{Address: common.HexToAddress(c.token), Decimals: c.tokDec}, Price: c.price}
		v.Quote.Decimals = c.qDec
		q := &txbuild.Quote{Side: c.side, Venue: c.venue, In: *c.amounts[0], Out: *c.amounts[1], Fee: *c.amounts[2],
			CreatorFee: *c.amounts[3], Refund: *c.amounts[4], ImpactBps: uint64(i * 37), Graduates: i%2 == 0}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		qj := quoteOf(v, q)
		if err := enc.Encode(&qj); err != nil {
			t.Fatal(err)
		}
		if got := string(quoteAnswer{v, q}.appendJSON(nil)) + "\n"; got != want.String() {
			t.Errorf("appendJSON:\n%s\nencoding/json:\n%s", got, want.String())
		}
	}
}

// A token's own JSON is byte for byte what encoding/json writes of tokenOf, on the curve and
// graduated, whatever its strings, amounts and numbers.
func TestTokenJSONAsEncodingJSON(t *testing.T) {
	t.Parallel()
	big := new(uint256.Int).SetAllOne()
	hostile := "n\"a<m>e&\\ \u2028 é\x01\x7f\xff</script>"
	for i, price := range []float64{2.7958993476234855e-08, math.Inf(-1), math.NaN(), 1e21, -0.5, 0} {
		v := &market.View{Price: price, ProgressBps: uint16(i * 1999), MarketCap: *uint256.NewInt(uint64(i) * 1e17)}
		v.Address = common.HexToAddress(fmt.Sprintf("0x%040x", i*977))
		v.Curve = common.HexToAddress("0xc0ffee0000000000000000000000000000000001")
		v.Creator = common.HexToAddress(fmt.Sprintf("0x%040x", i))
		v.Name, v.Symbol, v.URI = hostile[:i*3], hostile[i:], "ipfs://"+hostile
		v.Decimals, v.Quote.Decimals = uint8(i*7), uint8(18-i)
		v.Quote.Symbol = hostile[i*2:]
		if i%2 == 1 {
			v.Quote.Address = common.HexToAddress("0x00000000000000000000000000000000000000Ab")
		}
		v.State.Graduated = i%3 == 2
		v.Pool = common.HexToAddress(fmt.Sprintf("0x%040x", (i%4)*55))
		v.TotalSupply, v.Liquidity, v.Day.Volume = *big, *uint256.NewInt(uint64(i)), *uint256.NewInt(123456789)
		v.State.VirtualQuote, v.State.VirtualToken, v.State.RealQuote, v.State.RealToken = *big, *uint256.NewInt(1), *uint256.NewInt(0), *uint256.NewInt(1e18)
		v.PoolReserveQuote, v.PoolReserveToken = *uint256.NewInt(5), *big
		v.Day.Buys, v.Day.Sells = i*3, i
		v.CreatedAt, v.LastTradeAt, v.LaunchBlock = int64(1700000000+i), int64(i%2)*1700000500, uint64(i*i)
		v.LaunchTx = common.BytesToHash([]byte{byte(i), 0xfe})
		v.GraduatedAt = int64(i%3/2) * 1700000900
		if i%3 == 1 {
			v.Ranks = &market.Ranks{Trend: float64(i) * 1.5, Change1h: -0.25, Change24h: math.Inf(1)}
		}
		if i%2 == 1 {
			v.Concentration = &market.Concentration{Holders: i * 7, Top10Share: 1 / float64(i+2), CreatorShare: float64(i) / 1e9, CreatorBalance: *big}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		tj := tokenOf(v)
		if err := enc.Encode(&tj); err != nil {
			t.Fatal(err)
		}
		if got := string(tokenAnswer{v}.appendJSON(nil)) + "\n"; got != want.String() {
			t.Errorf("case %d, appendJSON:\n%s\nencoding/json:\n%s", i, got, want.String())
		}
	}
}

// The credential headers are read by their canonical names, as net/http stores them.
func TestCredentialHeadersCanonical(t *testing.T) {
	for _, k := range []string{"X-Api-Key", "Authorization"} {
		if http.CanonicalHeaderKey(k) != k {
			t.Errorf("%q is not canonical (%q)", k, http.CanonicalHeaderKey(k))
		}
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("x-api-key", "k")
	if c, _ := credentials(r, false); c.APIKey != "k" {
		t.Errorf("x-api-key not read: %+v", c)
	}
}

// seriesOf is the seriesJSON of s, as encoding/json would be given it.
func seriesOf(s *market.Series) seriesJSON {
	out := seriesJSON{Resolution: s.Resolution, From: s.From, To: s.To, Bars: make([]barJSON, len(s.Bars)), NoData: s.NoData}
	for i := range s.Bars {
		out.Bars[i] = barOf(&s.Bars[i], s.Token.Quote.Decimals)
	}
	if s.Prev != 0 {
		p := s.Prev
		out.Prev = &p
	}
	return out
}

// A candle window's own JSON is byte for byte what encoding/json writes of seriesOf, whatever its
// prices, volumes and counts.
func TestSeriesJSONAsEncodingJSON(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		s := market.Series{Resolution: []candles.Resolution{candles.Res1m, candles.Res5m, candles.Res1h, candles.Res1d}[i%4],
			From: rng.Int64N(2_000_000_000), To: rng.Int64N(2_000_000_000), NoData: i%7 == 0}
		s.Token.Quote.Decimals = uint8(rng.IntN(31))
		if i%3 == 0 {
			s.Prev = rng.Int64N(2_000_000_000)
		}
		prices := []float64{0, 1e21, 1e-7, 2.7958993476234855e-08, math.Inf(1), math.NaN(), -0.5, 123456.789}
		for range rng.IntN(6) * (i % 5) {
			s.Bars = append(s.Bars, candles.Bar{Time: rng.Int64N(2_000_000_000),
				Open: prices[rng.IntN(len(prices))], High: rng.Float64() * 1e-3, Low: prices[rng.IntN(len(prices))], Close: rng.ExpFloat64(),
				Volume: candles.Volume{Hi: rng.Uint64() >> rng.UintN(65), Lo: rng.Uint64()}, Trades: rng.IntN(1 << 20)})
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(seriesOf(&s)); err != nil {
			t.Fatal(err)
		}
		if got := string(appendSeriesJSON(nil, &s)) + "\n"; got != want.String() {
			t.Fatalf("case %d, appendSeriesJSON:\n%s\nencoding/json:\n%s", i, got, want.String())
		}
	}
}
