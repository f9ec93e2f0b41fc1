package bunstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/holiman/uint256"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/market"
)

// dayStatement reads a token's day as the discovery state keeps it (discovery.go): its figures on
// its tokens row and the clock they are as of, in one statement, so that the two belong to the
// same batch. Two primary-key probes, whatever the token's trades.
const dayStatement = `SELECT t.volume_24h, t.buys_24h, t.sells_24h, t.price_24h,
	COALESCE((SELECT d.trend_at FROM discovery AS d WHERE d.id = 1), 0) AS trend_at
	FROM tokens AS t WHERE t.address = ?`

// Day returns a token's day figures as of the discovery clock.
func (s *Market) Day(ctx context.Context, token common.Address) (market.Day, error) {
	var row struct {
		Volume   amount     `bun:"volume_24h"`
		Buys     int        `bun:"buys_24h"`
		Sells    int        `bun:"sells_24h"`
		Price24h *binAmount `bun:"price_24h"`
		At       int64      `bun:"trend_at"`
	}
	err := s.db.NewRaw(dayStatement, token).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return market.Day{}, fmt.Errorf("bunstore: token %s: %w", token, curvekit.ErrNotFound)
	}
	if err != nil {
		return market.Day{}, fmt.Errorf("bunstore: day of %s: %w", token, err)
	}
	d := market.Day{At: row.At, Volume: uint256.Int(row.Volume), Buys: row.Buys, Sells: row.Sells}
	if row.Price24h != nil {
		p := uint256.Int(*row.Price24h)
		d.Price24h = &p
	}
	return d, nil
}
