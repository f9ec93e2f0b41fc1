package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/candles"
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
	a, ok := parseAddress(req.Param("address"))
	if !ok {
		return a, badRequest("malformed token address: want 0x followed by 40 hex digits")
	}
	return a, nil
}

// readError maps a market read failure for the non-quote endpoints: an unknown token is 404, a
// rejected parameter (a cursor, a window) 400, and anything else stays a 500.
func readError(err error) error {
	switch {
	case errors.Is(err, curvekit.ErrNotFound):
		return &httpError{status: http.StatusNotFound, message: "token not found"}
	case errors.Is(err, curvekit.ErrInvalid):
		return badRequest("%s", clientMessage(err))
	}
	return err
}

// GET /tokens
func (s *Server) listTokens(w http.ResponseWriter, req bunrouter.Request) error {
	q, err := newQuery(req.URL)
	if err != nil {
		return badRequest("%s", err)
	}
	tq := market.TokenQuery{}
	sort, err := q.str("sort", string(market.SortNewest))
	if err != nil {
		return badRequest("%s", err)
	}
	switch market.TokenSort(sort) {
	case market.SortNewest, market.SortVolume24h, market.SortMarketCap, market.SortProgress:
		tq.Sort = market.TokenSort(sort)
	default:
		return badRequest("sort must be one of newest, volume24h, marketCap, progress")
	}
	phase, hasPhase, err := q.get("phase")
	if err != nil {
		return badRequest("%s", err)
	}
	if hasPhase {
		switch market.Phase(phase) {
		case market.PhaseCurve, market.PhaseGraduated:
			tq.Phase = market.Phase(phase)
		default:
			return badRequest("phase must be curve or graduated")
		}
	}
	quote, hasQuote, err := q.get("quote")
	if err != nil {
		return badRequest("%s", err)
	}
	if hasQuote {
		// The pairing asset: "ETH" for native ether, or an ERC-20's address.
		var a common.Address
		if !strings.EqualFold(quote, "ETH") {
			var ok bool
			if a, ok = parseAddress(quote); !ok {
				return badRequest("quote must be ETH or a pairing asset's address")
			}
		}
		tq.Quote = &a
	}
	if tq.Search, err = q.str("q", ""); err != nil {
		return badRequest("%s", err)
	}
	if len(tq.Search) > maxSearchLen {
		return badRequest("q must be at most %d bytes", maxSearchLen)
	}
	if tq.Cursor, err = q.str("cursor", ""); err != nil {
		return badRequest("%s", err)
	}
	limit, err := q.intIn("limit", market.DefaultLimit, 1, market.MaxLimit)
	if err != nil {
		return badRequest("%s", err)
	}
	tq.Limit = int(limit)
	page, err := s.cfg.Market.Tokens(req.Context(), tq)
	if err != nil {
		return readError(err)
	}
	out := tokenListJSON{Tokens: make([]tokenJSON, len(page.Tokens)), NextCursor: cursorOrNull(page.Next)}
	for i := range page.Tokens {
		out.Tokens[i] = tokenOf(&page.Tokens[i])
	}
	return writeJSON(w, http.StatusOK, out)
}

// GET /tokens/:address
func (s *Server) getToken(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	v, err := s.cfg.Market.Token(req.Context(), addr)
	if err != nil {
		return readError(err)
	}
	return writeJSON(w, http.StatusOK, tokenOf(&v))
}

// GET /tokens/:address/trades
func (s *Server) listTrades(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	q, err := newQuery(req.URL)
	if err != nil {
		return badRequest("%s", err)
	}
	tq := market.TradeQuery{Token: addr}
	if tq.Cursor, err = q.str("cursor", ""); err != nil {
		return badRequest("%s", err)
	}
	limit, err := q.intIn("limit", market.DefaultLimit, 1, market.MaxLimit)
	if err != nil {
		return badRequest("%s", err)
	}
	tq.Limit = int(limit)
	page, tok, err := s.cfg.Market.Trades(req.Context(), tq)
	if err != nil {
		return readError(err)
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
	q, err := newQuery(req.URL)
	if err != nil {
		return badRequest("%s", err)
	}
	cq := market.CandleQuery{Token: addr}
	res, err := q.str("res", candles.DefaultResolution.String())
	if err != nil {
		return badRequest("%s", err)
	}
	if cq.Resolution, err = candles.ParseResolution(res); err != nil {
		return badRequest("res must be one of 1m, 5m, 15m, 1h, 4h, 1d")
	}
	if cq.From, err = q.intIn("from", 0, 1, maxUnixTime); err != nil {
		return badRequest("%s", err)
	}
	if cq.To, err = q.intIn("to", 0, 1, maxUnixTime); err != nil {
		return badRequest("%s", err)
	}
	if cq.From != 0 && cq.To != 0 && cq.From > cq.To {
		return badRequest("from must not be after to")
	}
	limit, err := q.intIn("limit", market.MaxBars, 1, market.MaxBars)
	if err != nil {
		return badRequest("%s", err)
	}
	cq.Limit = int(limit)
	series, err := s.cfg.Market.Candles(req.Context(), cq)
	if err != nil {
		return readError(err)
	}
	return writeJSON(w, http.StatusOK, seriesOf(&series))
}

// GET /tokens/:address/stats
func (s *Server) getStats(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	st, err := s.cfg.Market.Stats(req.Context(), addr)
	if err != nil {
		return readError(err)
	}
	return writeJSON(w, http.StatusOK, statsOf(&st))
}
