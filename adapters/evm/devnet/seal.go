package devnet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/consensus/misc/eip1559"
	"github.com/ethereum/go-ethereum/core/txpool"
	"github.com/holiman/uint256"
)

// errClosed reports that the devnet was closed.
var errClosed = errors.New("devnet: closed")

// sealPending seals a block if, once the pool has caught up with the head, it holds a
// transaction the next block can include. With Config.WallClock it seals only once the wall
// clock is past the head's time (the block then takes the wall clock's second, after its
// parent's); before that it seals nothing and returns how long to wait.
func (d *Devnet) sealPending() (wait time.Duration, sealed bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0, false, errClosed
	}
	pool := d.Backend.eth.TxPool()
	// The pool drops what a block included in the background; Sync waits for that, so a
	// transaction Send or Mine just sealed is not counted again.
	if err := pool.Sync(); err != nil {
		return 0, false, fmt.Errorf("devnet: transaction pool: %w", err)
	}
	chain := d.Backend.eth.BlockChain()
	head := chain.CurrentBlock()
	baseFee, overflow := uint256.FromBig(eip1559.CalcBaseFee(chain.Config(), head))
	if overflow {
		return 0, false, errors.New("devnet: base fee overflows")
	}
	if _, n := pool.Pending(txpool.PendingFilter{BaseFee: baseFee}); n == 0 {
		return 0, false, nil
	}
	if d.wallClock {
		if due := time.Unix(int64(head.Time)+1, 0); time.Now().Before(due) {
			return time.Until(due), false, nil
		}
	}
	d.Backend.Commit()
	return 0, true, nil
}

// sealIncluding returns once the transaction hash, sent, is in a block: one that sealPending
// seals, here or in another goroutine, when the wall clock allows.
func (d *Devnet) sealIncluding(ctx context.Context, hash common.Hash) error {
	// Read from the chain itself: over JSON-RPC a transaction not yet mined can read as "indexing
	// in progress" on a new chain.
	mined := func() bool {
		lookup, _ := d.Backend.eth.BlockChain().GetCanonicalTransaction(hash)
		return lookup != nil
	}
	for {
		if mined() {
			return nil
		}
		wait, sealed, err := d.sealPending()
		if err != nil {
			return err
		}
		if sealed {
			continue
		}
		if wait == 0 {
			// Nothing the next block can include is pending: the transaction was sealed since
			// it was looked for, or it cannot be included at all.
			if mined() {
				return nil
			}
			return fmt.Errorf("devnet: transaction %s is not includable in the next block", hash)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-d.closing:
			t.Stop()
			return errClosed
		case <-t.C:
		}
	}
}
