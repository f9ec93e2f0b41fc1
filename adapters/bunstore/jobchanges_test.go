package bunstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/agent"
)

// On PostgreSQL a watch hears the changes another process commits (here another DB on the same
// schema), and returns, reporting the loss, when its connection is cut: a change committed then
// may go unreported, so its caller must stop trusting what it kept.
func TestWatchJobsAcrossProcessesAndItsLoss(t *testing.T) {
	t.Parallel()
	dsn := postgresSchema(t)
	var b [6]byte
	rand.Read(b[:])
	app := "watch-" + hex.EncodeToString(b[:])
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	watching := openDB(t, bunstore.Config{DSN: u.String(), MaxOpenConns: 2}).Agent()
	other := openDB(t, bunstore.Config{DSN: dsn, MaxOpenConns: 2}).Agent()

	ctx := context.Background()
	ready := make(chan struct{})
	heard := make(chan string, 16)
	returned := make(chan error, 1)
	go func() {
		returned <- watching.WatchJobs(ctx, func() { close(ready) }, func(id string) { heard <- id })
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("not ready within 10 s")
	}

	now := time.Now()
	wallet := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	if _, err := other.InsertJob(ctx, &agent.InsertJobParams{ID: "x-" + app, ThreadID: "t-" + app, Wallet: wallet, Prompt: "p", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := other.CancelJob(ctx, &agent.CancelJobParams{ID: "x-" + app, Wallet: wallet, At: now}); err != nil {
		t.Fatal(err)
	}
	for id := ""; id != "x-"+app; {
		select {
		case id = <-heard:
		case <-time.After(5 * time.Second):
			t.Fatal("a cancellation committed by another process was not heard within 5 s")
		}
	}

	// Cut the watch's connection, as a restart of the database or a network fault would.
	admin := mustConnector(t, dsn)
	res, err := admin.ExecContext(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN%'", app)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("terminated %d listening connections, want 1", n)
	}
	select {
	case err := <-returned:
		if err == nil {
			t.Fatal("the watch returned nil after losing its connection")
		}
		t.Logf("the watch returned: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the watch kept running for 5 s on a cut connection")
	}
}
