package evm

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
)

// growAfter is how many full-width eth_getLogs calls in a row succeed before the window doubles.
const growAfter = 8

// window is the widest block range one eth_getLogs covers: unlimited until a provider refuses a
// range (too wide, too many logs), then what worked, growing back while calls succeed. A cap
// the provider named is never exceeded again; a refusal for too many logs only narrows the
// window until the logs thin out.
type window struct {
	mu    sync.Mutex
	span  uint64 // 0: unlimited
	cap   uint64 // the provider's range limit once it named one; 0: none known
	fills int    // full-width successes in a row
}

// next is the end of the range to ask for from `from`, at most `to`.
func (w *window) next(from, to uint64) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.span > 0 && to-from+1 > w.span {
		return from + w.span - 1
	}
	return to
}

// refused narrows the window below width after a refusal of kind, to the hint when the
// provider gave one.
func (w *window) refused(width uint64, kind failure, hint uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	next := max(width/2, 1)
	if hint > 0 && hint < width {
		next = hint
	}
	if kind == failRange && hint > 0 && (w.cap == 0 || hint < w.cap) {
		w.cap = hint
	}
	if w.span == 0 || next < w.span {
		w.span = next
	}
	w.fills = 0
}

// worked records a success over width blocks, and widens the window after growAfter full ones.
func (w *window) worked(width uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.span == 0 || width < w.span {
		return
	}
	if w.fills++; w.fills < growAfter {
		return
	}
	w.fills = 0
	w.span *= 2
	if w.cap > 0 && w.span > w.cap {
		w.span = w.cap
	}
}

// Span is the widest range one eth_getLogs covers now; 0: unlimited.
func (c *Chain) Span() uint64 {
	c.logs.mu.Lock()
	defer c.logs.mu.Unlock()
	return c.logs.span
}

// unknownRefusal reports an eth_getLogs refusal in words the table of provider errors does not
// know: the provider answered with a JSON-RPC error that is not the call's known failure. Many
// such refusals are about the range ("block range is too wide"), so a narrower one is tried.
func unknownRefusal(err error, kind failure) bool {
	var re rpc.Error
	return kind == failCall && errors.As(err, &re) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// maxLogsBackoff bounds the pause before a narrower eth_getLogs after a refusal the table does
// not know.
const maxLogsBackoff = 2 * time.Second

// filterLogs reads the logs of q over [from, to], in as many calls as the provider's limits
// need, in chain order. A refusal the table of provider errors knows narrows the range at once;
// one in other words is answered the same way after a pause (Config.LogsBackoff, doubled at each
// refusal in a row, up to 2s) and is the call's error only once a single block is refused.
func (c *Chain) filterLogs(ctx context.Context, q ethereum.FilterQuery, from, to uint64) ([]types.Log, error) {
	var (
		out   []types.Log
		pause time.Duration // before the next call, after refusals in words not known
	)
	for from <= to {
		end := c.logs.next(from, to)
		q.FromBlock, q.ToBlock = new(big.Int).SetUint64(from), new(big.Int).SetUint64(end)
		logs, err := c.cfg.Client.FilterLogs(ctx, q)
		if err != nil {
			kind := classify(err)
			switch {
			case (kind == failRange || kind == failResults) && end > from:
				c.logs.refused(end-from+1, kind, rangeHint(err, kind))
				continue
			case unknownRefusal(err, kind) && end > from && ctx.Err() == nil:
				if c.unknownLogs.CompareAndSwap(false, true) {
					c.cfg.Logger.Warn("the chain node refuses eth_getLogs in words not known; narrowing the range", "blocks", end-from+1, "err", err)
				}
				c.logs.refused(end-from+1, failResults, 0)
				pause = min(max(pause*2, c.cfg.LogsBackoff), maxLogsBackoff)
				select {
				case <-ctx.Done():
					return nil, ctx.Err()
				case <-time.After(pause):
				}
				continue
			}
			return nil, fmt.Errorf("evm: logs %d-%d: %w", from, end, err)
		}
		pause = 0
		c.logs.worked(end - from + 1)
		out = append(out, logs...)
		from = end + 1
	}
	return out, nil
}
