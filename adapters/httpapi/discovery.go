package httpapi

import (
	"net/http"

	"github.com/uptrace/bunrouter"
)

// kingJSON is GET /tokens/king's answer: the king of the hill and since when it holds the crown
// (a block time).
type kingJSON struct {
	Since int64     `json:"since"`
	Token tokenJSON `json:"token"`
}

// GET /tokens/king
func (s *Server) getKing(w http.ResponseWriter, req bunrouter.Request) error {
	q := newQuery(req.URL)
	quote, _, unknown := q.quote("quote") // absent: ETH
	if err := q.err(); err != nil {
		return err
	}
	if unknown != nil {
		return unknown
	}
	return s.answers.serve(w, req, q.canonical(req.URL), s.cfg.Market, func() (any, error) {
		k, err := s.cfg.Market.King(req.Context(), quote)
		if err != nil {
			return nil, err
		}
		return kingJSON{Since: k.Since, Token: tokenOf(&k.Token)}, nil
	})
}
