package bunstore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/internal/pgtest"
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
	dsn := pgtest.Schema(t, "bunstore_readplans")
	ctx := context.Background()
	d, err := Open(ctx, Config{DSN: dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
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
	log.record(false)
	explainAll(t, d, log)
}
