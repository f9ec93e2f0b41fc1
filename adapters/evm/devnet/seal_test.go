package devnet

import (
	"context"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// aheadWatch samples the head's time against the wall clock until stop is called, which returns
// the most the head stood ahead of the wall clock's second, in seconds.
func aheadWatch(d *Devnet) (stop func() int64) {
	var most atomic.Int64
	most.Store(-1 << 62)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			now := time.Now().Unix() // before the head: a head sealed later cannot look ahead
			if ahead := int64(d.Backend.Head().Time) - now; ahead > most.Load() {
				most.Store(ahead)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	return func() int64 { close(done); wg.Wait(); return most.Load() }
}

// With WallClock, 20 transactions a second for three seconds, from Send in many goroutines and
// over JSON-RPC, are all mined while the head's time never passes the wall clock by more than a
// second (each is sealed at once, or waits with the others for the wall clock's next second);
// the setup kept to the wall clock too.
func TestWallClockKeepsTheChainWithTheWallClock(t *testing.T) {
	t.Parallel()
	d, err := Start(Config{WallClock: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	if ahead := int64(d.Backend.Head().Time) - time.Now().Unix(); ahead > 1 {
		t.Fatalf("after the setup the head stands %d s ahead of the wall clock", ahead)
	}
	c := dial(t, "http://"+serveRPC(t, d))
	ctx := context.Background()
	first, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stop := aheadWatch(d)

	const rate, seconds = 20, 3
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		hashes []common.Hash
	)
	tick := time.NewTicker(time.Second / rate)
	defer tick.Stop()
	wallet := d.Accounts[9]
	for i := range rate * seconds {
		<-tick.C
		if i%4 == 3 {
			// A wallet's transaction over JSON-RPC, mined by ServeRPC.
			tx := signed(t, c, wallet.Key, dead, big.NewInt(int64(i+1)), nil)
			if err := c.SendTransaction(ctx, tx); err != nil {
				t.Fatalf("eth_sendRawTransaction: %v", err)
			}
			mu.Lock()
			hashes = append(hashes, tx.Hash())
			mu.Unlock()
			continue
		}
		acc := d.Accounts[4+i%5]
		wg.Go(func() {
			r, err := d.Send(ctx, acc.Key, &dead, big.NewInt(int64(i+1)), nil)
			if err != nil {
				t.Errorf("Send %d: %v", i, err)
				return
			}
			mu.Lock()
			hashes = append(hashes, r.TxHash)
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, h := range hashes {
		if r := receipt(t, c, h); r.Status != types.ReceiptStatusSuccessful {
			t.Fatalf("%s reverted", h)
		}
	}
	if ahead := stop(); ahead > 1 {
		t.Fatalf("the head stood %d s ahead of the wall clock", ahead)
	}
	if len(hashes) != rate*seconds {
		t.Fatalf("%d transactions mined, want %d", len(hashes), rate*seconds)
	}
	last, err := c.BlockNumber(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mined := 0
	for n := first + 1; n <= last; n++ {
		b, err := c.BlockByNumber(ctx, new(big.Int).SetUint64(n))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Transactions()) == 0 {
			t.Errorf("block %d is empty", n)
		}
		mined += len(b.Transactions())
	}
	if mined != rate*seconds {
		t.Fatalf("blocks %d..%d hold %d transactions; want %d", first+1, last, mined, rate*seconds)
	}
}
