package market

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/curvekit/curvekit"
)

// ErrRewound reports that the store no longer holds the position a replica followed from: a
// chain reorganization rolled it back. The replica's streams rebuild (a full reset), and it
// follows on from the store's cursor.
var ErrRewound = fmt.Errorf("%w: the store was rolled back below the followed position", curvekit.ErrConflict)

// sinceAttempts bounds the reads of SyncSince while the indexer keeps committing under it.
const sinceAttempts = 5

// SyncSince rebuilds from the store alone what the indexer committed after prev: the Sync that a
// replica which does not index hands to its feed and token cache when the leader announces a
// commit, so every replica builds the same events. Trades come in chain order; Launches hold the
// tokens launched after prev and Updates every touched token, each in its state at the returned
// cursor. The reads are repeated until the cursor is the same before and after them, so the states
// belong to that cursor; when prev is no longer on the store's chain it fails with ErrRewound.
func SyncSince(ctx context.Context, s Store, prev Cursor) (Sync, error) {
	for range sinceAttempts {
		cur, err := s.Cursor(ctx)
		if err != nil {
			return Sync{}, err
		}
		if cur == prev {
			return Sync{Cursor: cur}, nil
		}
		if err := onChain(ctx, s, prev, cur); err != nil {
			return Sync{}, err
		}
		b, err := batchSince(ctx, s, prev, cur)
		if err != nil {
			return Sync{}, err
		}
		after, err := s.Cursor(ctx)
		if err != nil {
			return Sync{}, err
		}
		if after == cur {
			return Sync{Batch: b, Cursor: cur}, nil
		}
	}
	return Sync{}, fmt.Errorf("market: the store moved during %d reads in a row", sinceAttempts)
}

// History is a Store's committed history: its cursor, and what was committed after a position
// (SyncSince). The orders engine catches up through it.
type History struct{ Store Store }

// Cursor is the store's cursor.
func (h History) Cursor(ctx context.Context) (Cursor, error) { return h.Store.Cursor(ctx) }

// Since is SyncSince on the store.
func (h History) Since(ctx context.Context, prev Cursor) (Sync, error) {
	return SyncSince(ctx, h.Store, prev)
}

// onChain checks that prev is still a block the store recorded (or the start).
func onChain(ctx context.Context, s Store, prev, cur Cursor) error {
	if prev == (Cursor{}) {
		return nil
	}
	if cur.Block < prev.Block {
		return ErrRewound
	}
	recent, err := s.RecentBlocks(ctx, 1024)
	if err != nil {
		return err
	}
	for _, c := range recent {
		if c.Block == prev.Block {
			if c != prev {
				return ErrRewound
			}
			return nil
		}
	}
	// Older than what the store keeps for reorganizations: deep enough to be final.
	if len(recent) > 0 && recent[len(recent)-1].Block > prev.Block {
		return nil
	}
	return ErrRewound
}

func batchSince(ctx context.Context, s Store, prev, cur Cursor) (*Batch, error) {
	touched, err := s.Touched(ctx, prev.Block)
	if err != nil {
		return nil, err
	}
	b := &Batch{Cursor: cur}
	for _, addr := range touched {
		tok, err := s.Token(ctx, addr)
		if errors.Is(err, curvekit.ErrNotFound) {
			continue // rolled back meanwhile; the cursor check catches it
		}
		if err != nil {
			return nil, err
		}
		if tok.LaunchBlock > prev.Block && tok.LaunchBlock <= cur.Block {
			b.Launches = append(b.Launches, tok)
		}
		b.Updates = append(b.Updates, tok)
		q := TradeQuery{Token: addr, Limit: MaxLimit}
		for {
			page, err := s.Trades(ctx, q)
			if err != nil {
				return nil, err
			}
			done := page.Next == ""
			for _, tr := range page.Trades {
				if tr.Block <= prev.Block {
					done = true
					break
				}
				if tr.Block <= cur.Block {
					b.Trades = append(b.Trades, tr)
				}
			}
			if done {
				break
			}
			q.Cursor = page.Next
		}
	}
	slices.SortFunc(b.Trades, func(x, y Trade) int {
		return cmp.Or(cmp.Compare(x.Block, y.Block), cmp.Compare(x.LogIndex, y.LogIndex))
	})
	return b, nil
}
