package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/curvekit/curvekit/market"
)

// holderJSON is one holder of GET /tokens/:address/holders: its balance in whole tokens, its
// share of the current supply (a display value, 0.25 = 25%) and its label, null when none
// applies.
type holderJSON struct {
	Address string  `json:"address"`
	Balance string  `json:"balance"`
	Share   number  `json:"share"`
	Label   *string `json:"label" enum:"curve,pool,burn,creator,sniper"`
}

type holderListJSON struct {
	Holders    []holderJSON `json:"holders"`
	NextCursor *string      `json:"nextCursor"`
}

// GET /tokens/:address/holders
func (s *Server) listHolders(w http.ResponseWriter, req bunrouter.Request) error {
	addr, err := tokenAddress(req)
	if err != nil {
		return err
	}
	q := newQuery(req.URL)
	hq := market.HolderQuery{Token: addr}
	hq.Cursor = q.str("cursor", "")
	hq.Limit = int(q.intIn("limit", market.DefaultLimit, 1, market.MaxLimit))
	if err := q.err(); err != nil {
		return err
	}
	page, err := s.cfg.Market.Holders(req.Context(), hq)
	if err != nil {
		return err
	}
	out := holderListJSON{Holders: make([]holderJSON, len(page.Holders)), NextCursor: cursorOrNull(page.Next)}
	for i := range page.Holders {
		h := &page.Holders[i]
		out.Holders[i] = holderJSON{Address: h.Holder.Hex(), Balance: amount(&h.Balance, page.Token.Decimals), Share: number(h.Share)}
		if h.Label != "" {
			l := string(h.Label)
			out.Holders[i].Label = &l
		}
	}
	return writeJSON(w, http.StatusOK, out)
}
