package app_test

import (
	"testing"
	"time"

	"github.com/curvekit/curvekit/internal/app"
	"github.com/curvekit/curvekit/internal/app/apptest"
)

// The server's devnet keeps block times with the wall clock unless told otherwise: with the trade
// simulator sending as fast as it can, blocks are mined and the head's time never passes the wall
// clock by more than a second (sealed one per transaction, it ran minutes ahead).
func TestServerDevnetKeepsWithTheWallClock(t *testing.T) {
	t.Parallel()
	defaults, err := app.ParseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	if defaults.DevnetBlocks != "clock" {
		t.Fatalf("--devnet-blocks defaults to %q, want clock", defaults.DevnetBlocks)
	}
	s := apptest.Start(t, []string{"--devnet-blocks", defaults.DevnetBlocks, "--simulate", "20ms"})
	dev := s.App.Devnet
	first := dev.Backend.Head().Number.Uint64()
	most := int64(-1 << 62)
	for end := time.Now().Add(4 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		now := time.Now().Unix() // before the head: a head sealed later cannot look ahead
		most = max(most, int64(dev.Backend.Head().Time)-now)
	}
	if most > 1 {
		t.Fatalf("the head stood %d s ahead of the wall clock", most)
	}
	if n := dev.Backend.Head().Number.Uint64() - first; n < 2 {
		t.Fatalf("%d blocks mined in 4 s of simulated trades", n)
	}
}
