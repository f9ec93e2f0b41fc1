package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/adapters/evm"
	"github.com/curvekit/curvekit/adapters/evm/devnet"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// testServer wires the reference server on a devnet without the simulator and serves it on a
// loopback socket.
type testServer struct {
	t    testing.TB
	app  *testApp
	base string
}

// testApp is the wired server under the short names the tests use.
type testApp struct {
	*app.App
	dev   *devnet.Devnet
	chain *evm.Chain
	store *bunstore.Market
}

// startServer wires the server with a SQLite file of its own plus the given flags, indexes the
// devnet's launches, and serves on a free loopback port until the test ends.
func startServer(t testing.TB, flags ...string) *testServer {
	return startServerWith(t, flags, nil)
}

// startServerWith is startServer with options for app.New.
func startServerWith(t testing.TB, flags []string, opts []app.Option) *testServer {
	t.Helper()
	srv := apptest.Start(t, flags, opts...)
	a := srv.App
	ta := &testApp{App: a, dev: a.Devnet, chain: a.Chain, store: a.Store}
	return &testServer{t: t, app: ta, base: srv.Base}
}

func (s *testServer) get(path string, out any) {
	s.t.Helper()
	resp, err := http.Get(s.base + path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		s.t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, out); err != nil {
		s.t.Fatalf("GET %s: %v in %s", path, err, body)
	}
}

type buildTx struct {
	Error    string `json:"error"`
	To       string `json:"to"`
	Data     string `json:"data"`
	Value    string `json:"value"`
	ChainID  uint64 `json:"chainId"`
	Approval *struct {
		To, Data, Value string
	} `json:"approval"`
	Quote struct {
		AmountOut string `json:"amountOut"`
		Refund    string `json:"refund"`
	} `json:"quote"`
}

type trade struct {
	TxHash      string  `json:"txHash"`
	Time        int64   `json:"time"`
	Block       uint64  `json:"block"`
	LogIndex    uint    `json:"logIndex"`
	Side        string  `json:"side"`
	QuoteAmount string  `json:"quoteAmount"`
	TokenAmount string  `json:"tokenAmount"`
	Price       float64 `json:"price"`
}

type bar struct {
	Time                   int64
	Open, High, Low, Close float64
	Volume                 string
	Trades                 int
}

type series struct {
	Bars   []bar  `json:"bars"`
	Prev   *int64 `json:"prev"`
	NoData bool   `json:"noData"`
}

// buildAndSend asks the API for an unsigned trade, signs exactly what it returned with acc and
// sends it to the devnet.
func (s *testServer) buildAndSend(acc devnet.Account, tokenAddr common.Address, side, amount string) (buildTx, common.Hash) {
	s.t.Helper()
	body := fmt.Sprintf(`{"type":%q,"amount":%q,"recipient":%q}`, side, amount, acc.Address.Hex())
	resp, err := http.Post(s.base+"/tokens/"+tokenAddr.Hex()+"/build-tx", "application/json", strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	var b buildTx
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		s.t.Fatal(err)
	}
	if b.Error != "" {
		s.t.Fatalf("build-tx: %s", b.Error)
	}
	send := func(to, data, value string) common.Hash {
		addr := common.HexToAddress(to)
		v, ok := new(uint256.Int), true
		if err := v.SetFromDecimal(value); err != nil {
			ok = false
		}
		if !ok {
			s.t.Fatalf("value %q", value)
		}
		rcpt, err := s.app.dev.Send(context.Background(), acc.Key, &addr, v.ToBig(), hexutil.MustDecode(data))
		if err != nil {
			s.t.Fatalf("send: %v", err)
		}
		return rcpt.TxHash
	}
	if b.Approval != nil {
		send(b.Approval.To, b.Approval.Data, b.Approval.Value)
	}
	return b, send(b.To, b.Data, b.Value)
}

// waitTrade polls /trades until the indexer has written tx.
func (s *testServer) waitTrade(tokenAddr common.Address, tx common.Hash) trade {
	s.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var page struct{ Trades []trade }
		s.get("/tokens/"+tokenAddr.Hex()+"/trades?limit=5", &page)
		for _, tr := range page.Trades {
			if tr.TxHash == tx.Hex() {
				return tr
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.t.Fatalf("trade %s never appeared in /trades", tx)
	return trade{}
}

func balance(t *testing.T, a *testApp, asset, owner common.Address) uint256.Int {
	t.Helper()
	b, err := a.chain.Balance(context.Background(), asset, owner)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A trade built by the HTTP API, signed by a test wallet and sent to the devnet executes with the
// output the quote gave; it then appears in /trades and moves the bar of /candles.
func TestBuildSignSendIndexChart(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dev := s.app.dev
	acc := dev.Accounts[6]
	for _, tk := range []devnet.Launch{dev.ETHToken, dev.USDToken, dev.GraduatedToken} {
		var tok struct{ Quote struct{ Decimals uint8 } }
		s.get("/tokens/"+tk.Token.Hex(), &tok)

		before := balance(t, s.app, tk.Token, acc.Address)
		built, tx := s.buildAndSend(acc, tk.Token, "buy", "0.5")
		after := balance(t, s.app, tk.Token, acc.Address)
		var got uint256.Int
		got.Sub(&after, &before)
		want, err := curvekit.ParseAmount(built.Quote.AmountOut, 18)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Eq(&want) {
			t.Fatalf("%s: received %s, quoted %s", tk.Token, got.Dec(), want.Dec())
		}

		tr := s.waitTrade(tk.Token, tx)
		if tr.Side != "buy" || tr.TokenAmount != built.Quote.AmountOut {
			t.Fatalf("indexed trade %+v, built %+v", tr, built.Quote)
		}
		var ser series
		s.get(fmt.Sprintf("/tokens/%s/candles?res=1m&from=%d&to=%d", tk.Token.Hex(), tr.Time, tr.Time), &ser)
		if len(ser.Bars) != 1 {
			t.Fatalf("candles around the trade: %+v", ser)
		}
		b := ser.Bars[0]
		if b.Close != tr.Price || b.Time != tr.Time/60*60 || b.Trades < 1 {
			t.Fatalf("bar %+v does not end with trade %+v", b, tr)
		}
		vol, err := curvekit.ParseAmount(b.Volume, tok.Quote.Decimals)
		if err != nil {
			t.Fatal(err)
		}
		q, err := curvekit.ParseAmount(tr.QuoteAmount, tok.Quote.Decimals)
		if err != nil {
			t.Fatal(err)
		}
		if vol.Lt(&q) {
			t.Fatalf("bar volume %s below the trade's %s", b.Volume, tr.QuoteAmount)
		}
	}
}

// The candles endpoint equals a brute-force recomputation from the raw trades that /trades
// returns, at every resolution, for windows that start before, inside and after the history.
func TestCandlesEqualBruteForce(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	dev := s.app.dev
	tk := dev.USDToken
	// Spread trades over several hours with quiet gaps, from two wallets, both sides.
	steps := []time.Duration{0, 10 * time.Second, 70 * time.Second, 5 * time.Minute, 0, 47 * time.Minute, 2 * time.Hour, 3 * time.Second, 6 * time.Hour}
	var last common.Hash
	for i, d := range steps {
		if d > 0 {
			if err := dev.AdjustTime(d); err != nil {
				t.Fatal(err)
			}
		}
		acc := dev.Accounts[4+i%2]
		side, amount := "buy", fmt.Sprintf("%d.%06d", 20+i*7, i*12345)
		if i%3 == 2 {
			side, amount = "sell", "100000.5"
		}
		_, last = s.buildAndSend(acc, tk.Token, side, amount)
	}
	s.waitTrade(tk.Token, last)
	// Windows reach five buckets past the last trade; /candles makes no bar after the chain's
	// present, so an empty block moves the present beyond all of them.
	if err := dev.AdjustTime(6 * 24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	dev.Mine()

	all := s.allTrades(tk.Token)
	first, end := all[0].Time, all[len(all)-1].Time
	for _, res := range candles.Resolutions() {
		sec := res.Seconds()
		windows := [][2]int64{
			{first - 3*sec, end + 2*sec},  // the whole history and quiet buckets after it
			{first + (end-first)/2, end},  // starts mid-history: opens at the previous close
			{end + sec, end + 5*sec},      // after the last trade: flat
			{first - 10*sec, first - sec}, // before the first trade: nothing
		}
		for _, w := range windows {
			var ser series
			s.get(fmt.Sprintf("/tokens/%s/candles?res=%s&from=%d&to=%d", tk.Token.Hex(), res, w[0], w[1]), &ser)
			want := bruteForce(all, sec, w[0], w[1], 6)
			if len(ser.Bars) != len(want) {
				t.Fatalf("%s %v: %d bars, brute force %d\n got %+v\nwant %+v", res, w, len(ser.Bars), len(want), ser.Bars, want)
			}
			for i := range want {
				if ser.Bars[i] != want[i] {
					t.Fatalf("%s %v bar %d: got %+v, brute force %+v", res, w, i, ser.Bars[i], want[i])
				}
			}
			if len(want) == 0 != ser.NoData {
				t.Fatalf("%s %v: noData %v with %d bars", res, w, ser.NoData, len(want))
			}
		}
	}
}

// bruteForce recomputes the bars of [from, to] from raw trades without the candles package:
// every bucket is looked at on its own.
func bruteForce(trades []trade, sec, from, to int64, quoteDecimals uint8) []bar {
	floor := func(ts int64) int64 { return int64(math.Floor(float64(ts)/float64(sec))) * sec }
	var out []bar
	start := floor(from)
	firstBucket := floor(trades[0].Time)
	if start < firstBucket {
		start = firstBucket // nothing before the first trade
	}
	for b := start; b <= floor(to); b += sec {
		// The previous close: the last trade before this bucket.
		prev := -1
		var in []trade
		for i, tr := range trades {
			switch {
			case tr.Time < b:
				prev = i
			case tr.Time < b+sec:
				in = append(in, tr)
			}
		}
		if prev < 0 && len(in) == 0 {
			continue
		}
		var x bar
		x.Time = b
		if prev >= 0 {
			p := trades[prev].Price
			x.Open, x.High, x.Low, x.Close = p, p, p, p
		} else {
			p := in[0].Price
			x.Open, x.High, x.Low, x.Close = p, p, p, p
		}
		var vol uint256.Int
		for _, tr := range in {
			x.High = math.Max(x.High, tr.Price)
			x.Low = math.Min(x.Low, tr.Price)
			x.Close = tr.Price
			q, _ := curvekit.ParseAmount(tr.QuoteAmount, quoteDecimals)
			vol.Add(&vol, &q)
		}
		x.Volume = curvekit.FormatAmount(&vol, quoteDecimals)
		x.Trades = len(in)
		out = append(out, x)
	}
	return out
}
