package httpapi

import (
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/candles"
	"github.com/curvekit/curvekit/curve"
	"github.com/curvekit/curvekit/market"
)

// Query limits of the market endpoints (docs/API.md).
const (
	maxSearchLen = 100
	// maxUnixTime bounds from and to of candles: far beyond any block time, far below overflow.
	maxUnixTime = 1_000_000_000_000
)

// tokenAddress returns the :address path parameter; a malformed one is 400.
func tokenAddress(req bunrouter.Request) (common.Address, error) {
	return pathAddress(req, "address", "token")
}

// GET /tokens
func (s *Server) listTokens(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	tq := market.TokenQuery{}
	switch sort := market.TokenSort(q.str("sort", string(market.SortNewest))); sort {
	case market.SortNewest, market.SortVolume24h, market.SortMarketCap, market.SortProgress,
		market.SortTrending, market.SortGainers1h, market.SortGainers24h, market.SortLosers24h:
		tq.Sort = sort
	default:
		q.fail("sort must be one of newest, volume24h, marketCap, progress, trending, gainers1h, gainers24h, losers24h")
	}
	tq.ProgressMin = q.percent("progressMin", 0)
	tq.ProgressMax = q.percent("progressMax", curve.BPS)
	if tq.ProgressMin > tq.ProgressMax {
		q.fail("progressMin must not be above progressMax")
	}
	tq.GraduatedSince = q.intIn("graduatedSince", 0, 1, maxUnixTime)
	if phase, ok := q.get("phase"); ok {
		switch market.Phase(phase) {
		case market.PhaseCurve, market.PhaseGraduated:
			tq.Phase = market.Phase(phase)
		default:
			q.fail("phase must be curve or graduated")
		}
	}
	quote, ok, unknown := q.quote("quote")
	if ok {
		tq.Quote = &quote
	}
	if tq.Search = q.str("q", ""); len(tq.Search) > maxSearchLen {
		q.fail("q must be at most %d bytes", maxSearchLen)
	}
	tq.Cursor = q.str("cursor", "")
	tq.Limit = int(q.intIn("limit", market.DefaultLimit, 1, market.MaxLimit))
	if err := q.err(); err != nil {
		return err
	}
	if unknown != nil {
		return unknown
	}
	return s.answers.serve(w, req, q.canonical(req.URL), s.cfg.Market, func() (any, error) {
		page, err := s.cfg.Market.Tokens(req.Context(), tq)
		if err != nil {
			return nil, err
		}
		out := tokenListJSON{Tokens: make([]tokenJSON, len(page.Tokens)), NextCursor: cursorOrNull(page.Next)}
		for i := range page.Tokens {
			out.Tokens[i] = tokenOf(&page.Tokens[i])
		}
		return out, nil
	})
}

// GET /tokens/:address
func (s *Server) getToken(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	v, err := s.cfg.Market.Token(req.Context(), addr)
	if err != nil {
		return err
	}
	return writeToken(w, tokenAnswer{&v})
}

// GET /tokens/:address/trades
func (s *Server) listTrades(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	q := newQuery(req.URL)
	tq := market.TradeQuery{Token: addr}
	tq.Cursor = q.str("cursor", "")
	tq.Limit = int(q.intIn("limit", market.DefaultLimit, 1, market.MaxLimit))
	if err := q.err(); err != nil {
		return err
	}
	page, tok, err := s.cfg.Market.Trades(req.Context(), tq)
	if err != nil {
		return err
	}
	out := tradeListJSON{Trades: make([]tradeJSON, len(page.Trades)), NextCursor: cursorOrNull(page.Next)}
	for i := range page.Trades {
		out.Trades[i] = tradeOf(&tok, &page.Trades[i])
	}
	return writeJSON(w, http.StatusOK, out)
}

// GET /tokens/:address/candles
func (s *Server) getCandles(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	q := newQuery(req.URL)
	cq := market.CandleQuery{Token: addr}
	if cq.Resolution, err = candles.ParseResolution(q.str("res", candles.DefaultResolution.String())); err != nil {
		q.fail("res must be one of %s", strings.Join(resolutionNames(), ", "))
	}
	cq.From = q.intIn("from", 0, 1, maxUnixTime)
	cq.To = q.intIn("to", 0, 1, maxUnixTime)
	if cq.From != 0 && cq.To != 0 && cq.From > cq.To {
		q.fail("from must not be after to")
	}
	cq.Limit = int(q.intIn("limit", market.MaxBars, 1, market.MaxBars))
	if err := q.err(); err != nil {
		return err
	}
	series, err := s.cfg.Market.Candles(req.Context(), cq)
	if err != nil {
		return err
	}
	return writeSeries(w, &series)
}

// GET /tokens/:address/stats
func (s *Server) getStats(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	st, err := s.cfg.Market.Stats(req.Context(), addr)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, statsOf(&st))
}
