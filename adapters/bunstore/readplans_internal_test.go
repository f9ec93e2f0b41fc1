package bunstore

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/market"
	"github.com/curvekit/curvekit/market/marketgen"
	"github.com/curvekit/curvekit/txbuild"
)

// Every statement the public reads run on PostgreSQL is served by an index: each list order,
// phase and filter of GET /tokens and their combinations, first pages and later ones, search
// that matches and search that does not, the token, its trades (deep pages too), candles of every
// resolution, holders, stats, exports, the king and the namesakes. A read's cost is then its
// page's, whatever the store holds (explainAll).
func TestReadPathUsesIndexes(t *testing.T) {
	ctx := context.Background()
	d := openPostgres(t, "bunstore_readplans")
	log := &statementLog{seen: map[string]bool{}}
	d.bun.AddQueryHook(log)
	s := d.Market()
	end := time.Now().Unix()
	g, err := marketgen.New(marketgen.Shape{Tokens: 400, Trades: 12_000, End: end, Span: 3 * 86400, Seed: 21})
	if err != nil {
		t.Fatal(err)
	}
	for b := g.NextSpan(1_000); b != nil; b = g.NextSpan(1_000) {
		if err := s.Apply(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := d.bun.ExecContext(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
	b, err := txbuild.New(txbuild.Config{ChainID: 1337})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := market.NewService(market.ServiceConfig{Store: s, Builder: b})
	if err != nil {
		t.Fatal(err)
	}

	log.record(true)
	eth := common.Address{}
	sorts := []market.TokenSort{"", market.SortNewest, market.SortVolume24h, market.SortMarketCap, market.SortProgress,
		market.SortTrending, market.SortGainers1h, market.SortGainers24h, market.SortLosers24h}
	filters := []market.TokenQuery{
		{}, {Phase: market.PhaseCurve}, {Phase: market.PhaseGraduated}, {Quote: &eth},
		{Search: "a"}, {Search: "zzqqxx"}, {Search: "tok"}, {ProgressMin: 8_000, Phase: market.PhaseCurve},
		{GraduatedSince: end - 86400}, {GraduatedSince: end - 86400, ProgressMin: 5_000, ProgressMax: 10_000},
		{Phase: market.PhaseGraduated, Quote: &eth, Search: "o"},
	}
	var busiest common.Address
	for _, srt := range sorts {
		for _, f := range filters {
			q := f
			q.Sort, q.Limit = srt, 20
			for page := 0; page < 2; page++ {
				p, err := svc.Tokens(ctx, q)
				if err != nil {
					t.Fatalf("Tokens %+v: %v", q, err)
				}
				if srt == market.SortVolume24h && f == (market.TokenQuery{}) && page == 0 && len(p.Tokens) > 0 {
					busiest = p.Tokens[0].Address
				}
				if q.Cursor = p.Next; q.Cursor == "" {
					break
				}
			}
		}
	}
	if busiest == (common.Address{}) {
		t.Fatal("fixture: no token traded")
	}
	if _, err := svc.Token(ctx, busiest); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Stats(ctx, busiest); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.King(ctx, eth); err != nil && !errors.Is(err, curvekit.ErrNotFound) {
		t.Fatal(err)
	}
	tq := market.TradeQuery{Token: busiest, Limit: 50}
	for page := 0; page < 20; page++ {
		p, _, err := svc.Trades(ctx, tq)
		if err != nil {
			t.Fatal(err)
		}
		if tq.Cursor = p.Next; tq.Cursor == "" {
			break
		}
	}
	hq := market.HolderQuery{Token: busiest, Limit: 20}
	for page := 0; page < 3; page++ {
		p, err := svc.Holders(ctx, hq)
		if err != nil {
			t.Fatal(err)
		}
		if hq.Cursor = p.Next; hq.Cursor == "" {
			break
		}
	}
	for _, res := range candles.Resolutions() {
		if _, err := svc.Candles(ctx, market.CandleQuery{Token: busiest, Resolution: res}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Candles(ctx, market.CandleQuery{Token: busiest, Resolution: res, From: end - 2*86400, To: end - 86400}); err != nil {
			t.Fatal(err)
		}
	}
	eq := market.ExportQuery{Token: busiest, From: end - 2*86400, To: end, Resolution: candles.Res1h}
	if err := svc.ExportTrades(ctx, eq, func(*market.Token, *market.Trade) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := svc.ExportCandles(ctx, eq, func(*market.Token, *candles.Bar) error { return nil }); err != nil {
		t.Fatal(err)
	}
	// The day's figures and the last trade before a window, as the token view, stats, the
	// holders' snipers and a stream's seed read them (Day, TradesBetween): probes whatever the
	// token's trades, checked below for the indexes they walk.
	if _, err := s.Day(ctx, busiest); err != nil {
		t.Fatal(err)
	}
	for _, from := range []int64{end - 86400, end - 3600 + 17, end - 30} {
		if _, err := s.TradesBetween(ctx, market.RangeQuery{Token: busiest, From: from, To: from}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TradesBetween(ctx, market.RangeQuery{Token: busiest, From: from, To: from + 45}); err != nil {
			t.Fatal(err)
		}
	}
	log.record(false)
	explainAll(t, d, log)
	probes(t, d, log)
}

// probes fails t unless the statements that read a token's day (dayStatement), the last trade
// before a window (lastOfMinute) and the trades of a window read no hour of trades_token_time: the
// day reads the token's row, the trade before a window walks trades_token_block back from a
// minute bar's last trade, and the trades of a window walk it between two.
func probes(t *testing.T, d *DB, log *statementLog) {
	t.Helper()
	ctx := context.Background()
	log.mu.Lock()
	list := append([]string(nil), log.list...)
	log.mu.Unlock()
	seen := map[string]int{}
	for _, q := range list {
		kind := ""
		switch {
		case strings.Contains(q, "COALESCE((SELECT cb.last_block FROM candle_bars AS cb"):
			kind = "range"
		case strings.Contains(q, "FROM candle_bars AS cb WHERE cb.token") && strings.Contains(q, "tr.block_number, tr.log_index) <="):
			kind = "before"
		case strings.HasPrefix(strings.TrimSpace(q), "SELECT t.volume_24h, t.buys_24h"):
			kind = "day"
		default:
			continue
		}
		seen[kind]++
		var plan string
		if err := d.bun.NewRaw("EXPLAIN (FORMAT JSON) "+q).Scan(ctx, &plan); err != nil {
			t.Fatalf("EXPLAIN %.200s: %v", q, err)
		}
		var top []struct {
			Plan planNode `json:"Plan"`
		}
		if err := json.Unmarshal([]byte(plan), &top); err != nil || len(top) != 1 {
			t.Fatalf("EXPLAIN %.200s: %v", q, err)
		}
		scans := map[string]string{} // relation: index (or node type)
		var walk func(n planNode)
		walk = func(n planNode) {
			if n.Relation != "" {
				scans[n.Relation] = n.Index
				if n.Index == "" {
					scans[n.Relation] = n.Type
				}
			}
			for _, c := range n.Plans {
				walk(c)
			}
		}
		walk(top[0].Plan)
		switch kind {
		case "day":
			if _, ok := scans["trades"]; ok || scans["tokens"] != "tokens_pkey" {
				t.Errorf("the day's statement reads %v, want the token's row by tokens_pkey:\n%s", scans, q)
			}
		case "before":
			if scans["trades"] != "trades_token_block" || scans["candle_bars"] != "candle_bars_pkey" {
				t.Errorf("the trade before a window reads %v, want trades_token_block from candle_bars_pkey:\n%s", scans, q)
			}
		case "range":
			// The token's trades between two minute bars' last trades, or every token's in the
			// window's seconds: either reads the window, never the hours around it.
			if tr := scans["trades"]; tr != "trades_token_block" && tr != "trades_time" || scans["candle_bars"] != "candle_bars_pkey" {
				t.Errorf("the trades of a window read %v, want trades_token_block or trades_time, from candle_bars_pkey:\n%s", scans, q)
			}
		}
	}
	if seen["day"] == 0 || seen["before"] == 0 || seen["range"] == 0 {
		t.Fatalf("statements seen: %v; want the day's, the trade before a window and the trades of one", seen)
	}
}
