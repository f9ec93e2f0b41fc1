package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/internal/pgtest"
)

type udfHistory struct {
	S        string    `json:"s"`
	T        []int64   `json:"t"`
	O        []float64 `json:"o"`
	H        []float64 `json:"h"`
	L        []float64 `json:"l"`
	C        []float64 `json:"c"`
	V        []float64 `json:"v"`
	NextTime *int64    `json:"nextTime"`
	ErrMsg   string    `json:"errmsg"`
}

// The UDF datafeed on the devnet: its configuration and symbols follow the protocol, and its
// history is /candles' bars, exactly, on 200 random ranges and resolutions (with and without
// countback), quiet buckets included.
func TestUDFHistoryEqualsCandles(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dev := s.app.dev
	tk := dev.USDToken
	steps := []time.Duration{0, 40 * time.Second, 7 * time.Minute, 0, 52 * time.Minute, 3 * time.Hour, 9 * time.Second, 26 * time.Hour}
	var last common.Hash
	for i, d := range steps {
		if d > 0 {
			if err := dev.AdjustTime(d); err != nil {
				t.Fatal(err)
			}
		}
		side, amount := "buy", fmt.Sprintf("%d.%06d", 15+i*9, i*4321)
		if i%3 == 2 {
			side, amount = "sell", "90000.25"
		}
		_, last = s.buildAndSend(dev.Accounts[4+i%2], tk.Token, side, amount)
	}
	s.waitTrade(tk.Token, last)
	if err := dev.AdjustTime(3 * 24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	dev.Mine()
	all := s.allTrades(tk.Token)
	first, end := all[0].Time, all[len(all)-1].Time

	// The protocol's fixed answers.
	var cfg struct {
		SupportedResolutions []string `json:"supported_resolutions"`
		SupportsSearch       bool     `json:"supports_search"`
		SupportsGroupRequest bool     `json:"supports_group_request"`
		SupportsMarks        bool     `json:"supports_marks"`
		SupportsTime         bool     `json:"supports_time"`
	}
	s.get("/udf/config", &cfg)
	if !slices.Equal(cfg.SupportedResolutions, []string{"1", "5", "15", "60", "240", "1D"}) || !cfg.SupportsSearch ||
		cfg.SupportsGroupRequest || cfg.SupportsMarks || !cfg.SupportsTime {
		t.Fatalf("config %+v", cfg)
	}
	resp, err := http.Get(s.base + "/udf/time")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if now, err := strconv.ParseInt(string(body), 10, 64); err != nil || now < time.Now().Unix()-5 {
		t.Fatalf("time %q", body)
	}
	var sym struct {
		Name, Ticker, Session, Type string
		Pricescale                  int64 `json:"pricescale"`
		HasIntraday                 bool  `json:"has_intraday"`
		VolumePrecision             int   `json:"volume_precision"`
	}
	s.get("/udf/symbols?symbol="+strings.ToLower(tk.Token.Hex()), &sym)
	if sym.Ticker != tk.Token.Hex() || sym.Session != "24x7" || !sym.HasIntraday || sym.VolumePrecision != 6 || sym.Type != "crypto" {
		t.Fatalf("symbol %+v", sym)
	}
	// The launch price keeps six significant digits: price × pricescale ≥ 10⁵.
	var tok struct {
		Price float64 `json:"price"`
	}
	s.get("/tokens/"+tk.Token.Hex(), &tok)
	if float64(sym.Pricescale)*all[0].Price < 1e5 || sym.Pricescale > 1e18 {
		t.Fatalf("pricescale %d for prices from %g", sym.Pricescale, all[0].Price)
	}
	var bySymbol struct{ Ticker string }
	s.get("/udf/symbols?symbol="+sym.Name, &bySymbol)
	if bySymbol.Ticker != tk.Token.Hex() {
		t.Fatalf("symbol %s resolves to %q", sym.Name, bySymbol.Ticker)
	}
	var unknown struct{ S, ErrMsg string }
	s.get("/udf/symbols?symbol=NOPE", &unknown)
	if unknown.S != "error" {
		t.Fatalf("unknown symbol: %+v", unknown)
	}
	var found []struct{ Ticker string }
	s.get("/udf/search?query="+sym.Name+"&limit=10", &found)
	if !slices.ContainsFunc(found, func(f struct{ Ticker string }) bool { return f.Ticker == tk.Token.Hex() }) {
		t.Fatalf("search %s: %+v", sym.Name, found)
	}

	// 200 random ranges: UDF's [from, to) is /candles' [from, to-1]; countback is the latest
	// bars before to.
	rng := rand.New(rand.NewPCG(7, 11))
	names := map[candles.Resolution]string{candles.Res1m: "1", candles.Res5m: "5", candles.Res15m: "15", candles.Res1h: "60", candles.Res4h: "240", candles.Res1d: "1D"}
	resolutions := candles.Resolutions()
	var ok, noData int
	for i := range 200 {
		res := resolutions[rng.IntN(len(resolutions))]
		sec := res.Seconds()
		lo, hi := first-30*sec, end+30*sec
		from := lo + rng.Int64N(hi-lo)
		to := from + 1 + rng.Int64N(60*sec)
		countback := 0
		if i%4 == 3 {
			countback = 1 + rng.IntN(80)
		}
		var h udfHistory
		s.get(fmt.Sprintf("/udf/history?symbol=%s&resolution=%s&from=%d&to=%d&countback=%d", tk.Token.Hex(), names[res], from, to, countback), &h)
		var ser series
		var status int
		if countback > 0 {
			status = readJSON(t, fmt.Sprintf("%s/tokens/%s/candles?res=%s&to=%d&limit=%d", s.base, tk.Token.Hex(), res, to-1, countback), &ser)
		} else {
			status = readJSON(t, fmt.Sprintf("%s/tokens/%s/candles?res=%s&from=%d&to=%d", s.base, tk.Token.Hex(), res, from, to-1), &ser)
		}
		if status != http.StatusOK {
			// A range after the chain's present: /candles refuses it, UDF has no data there.
			if status != http.StatusBadRequest || h.S != "no_data" {
				t.Fatalf("range %d (%s %d..%d): /candles %d, UDF %+v", i, res, from, to, status, h)
			}
			noData++
			continue
		}
		if len(ser.Bars) == 0 {
			noData++
			if h.S != "no_data" || len(h.T) != 0 {
				t.Fatalf("range %d (%s %d..%d cb %d): /candles has no bars, UDF %+v", i, res, from, to, countback, h)
			}
			if (ser.Prev == nil) != (h.NextTime == nil) || ser.Prev != nil && *ser.Prev != *h.NextTime {
				t.Fatalf("range %d: nextTime %v, /candles prev %v", i, h.NextTime, ser.Prev)
			}
			continue
		}
		ok++
		if h.S != "ok" || len(h.T) != len(ser.Bars) || len(h.O) != len(h.T) || len(h.H) != len(h.T) || len(h.L) != len(h.T) ||
			len(h.C) != len(h.T) || len(h.V) != len(h.T) {
			t.Fatalf("range %d (%s %d..%d cb %d): UDF %s with %d bars, /candles %d", i, res, from, to, countback, h.S, len(h.T), len(ser.Bars))
		}
		for j, b := range ser.Bars {
			v, err := strconv.ParseFloat(b.Volume, 64)
			if err != nil {
				t.Fatal(err)
			}
			if h.T[j] != b.Time || h.O[j] != b.Open || h.H[j] != b.High || h.L[j] != b.Low || h.C[j] != b.Close || h.V[j] != v {
				t.Fatalf("range %d bar %d: UDF t=%d o=%g h=%g l=%g c=%g v=%g, /candles %+v", i, j, h.T[j], h.O[j], h.H[j], h.L[j], h.C[j], h.V[j], b)
			}
		}
		if countback > 0 && len(h.T) > countback {
			t.Fatalf("range %d: %d bars for countback %d", i, len(h.T), countback)
		}
	}
	if ok < 100 || noData < 5 {
		t.Fatalf("the ranges exercised %d ok and %d no_data answers; widen them", ok, noData)
	}
	// Refusals are UDF's: status 200, s "error".
	var bad udfHistory
	s.get(fmt.Sprintf("/udf/history?symbol=%s&resolution=7&from=1&to=2", tk.Token.Hex()), &bad)
	if bad.S != "error" || bad.ErrMsg == "" {
		t.Fatalf("bad resolution: %+v", bad)
	}
	t.Logf("%d ranges with bars, %d without", ok, noData)
}

// readJSON reads a JSON answer into out whatever its status, and returns the status.
func readJSON(t *testing.T, url string, out any) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("GET %s: %v in %s", url, err, body)
	}
	return resp.StatusCode
}

// UDF's search lists on the devnet's tokens (DETH and DUSD on their curves, 5.82% of the way,
// GRAD graduated): each symbol type of the configuration is the GET /tokens list it stands for,
// the same tokens in the same order, with and without a query.
func TestUDFSearchListsAreTheTokenLists(t *testing.T) {
	t.Parallel()
	testUDFSearchLists(t, startServer(t))
}

// The same on PostgreSQL.
func TestUDFSearchListsAreTheTokenListsOnPostgres(t *testing.T) {
	t.Parallel()
	dsn := pgtest.Schema(t, "udf")
	testUDFSearchLists(t, startServer(t, "--db", dsn, "--devnet-dir", t.TempDir()))
	db := pgtest.Connect(t, dsn)
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM tokens").Scan(&n); err != nil || n < 3 {
		t.Fatalf("the server's tokens on PostgreSQL: %d, %v", n, err)
	}
}

func testUDFSearchLists(t *testing.T, s *testServer) {
	var cfg struct {
		SymbolsTypes []struct{ Value string } `json:"symbols_types"`
	}
	s.get("/udf/config", &cfg)
	lists := map[string]string{
		"":           "sort=trending",
		"crypto":     "sort=trending",
		"graduating": "sort=progress&phase=curve&progressMin=80",
		"graduated":  "sort=trending&phase=graduated",
		"gainers1h":  "sort=gainers1h",
		"gainers24h": "sort=gainers24h",
		"losers24h":  "sort=losers24h",
	}
	if len(cfg.SymbolsTypes) != len(lists)-1 {
		t.Fatalf("symbol types %+v", cfg.SymbolsTypes)
	}
	nonEmpty := 0
	for _, st := range cfg.SymbolsTypes {
		list, ok := lists[st.Value]
		if !ok {
			t.Fatalf("symbol type %q: no list", st.Value)
		}
		for _, query := range []string{"", "D", "grad"} {
			for _, typ := range []string{st.Value, "crypto"} {
				if typ == "crypto" && st.Value != "" {
					continue
				}
				var found []struct{ Ticker, Type string }
				s.get("/udf/search?"+url.Values{"type": {typ}, "query": {query}}.Encode(), &found)
				var page tokenItems
				s.get("/tokens?limit=30&"+list+"&q="+query, &page)
				var got, want []string
				for _, f := range found {
					if f.Type != "crypto" {
						t.Errorf("type %q: a symbol of type %q", typ, f.Type)
					}
					got = append(got, f.Ticker)
				}
				for _, tk := range page.Tokens {
					want = append(want, tk.Address)
				}
				if !slices.Equal(got, want) {
					t.Errorf("/udf/search type %q, query %q: %v; GET /tokens?%s: %v", typ, query, got, list, want)
				}
				nonEmpty += min(len(got), 1)
			}
		}
	}
	if nonEmpty == 0 {
		t.Fatal("every list is empty")
	}
}
