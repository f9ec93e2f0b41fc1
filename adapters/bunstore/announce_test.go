package bunstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/market"
)

// Announcements on PostgreSQL reach every listener on another connection, in order, and the
// listener hears again after its connection was killed under it.
func TestAnnouncerPostgres(t *testing.T) {
	t.Parallel()
	dsn := postgresSchema(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listenerDB := openDB(t, bunstore.Config{DSN: dsn})
	speakerDB := openDB(t, bunstore.Config{DSN: dsn})
	heard := make(chan market.Cursor, 100)
	ann, err := listenerDB.Announcer()
	if err != nil {
		t.Fatal(err)
	}
	go ann.Listen(ctx, func(c market.Cursor) { heard <- c })
	speaker, err := speakerDB.Announcer()
	if err != nil {
		t.Fatal(err)
	}
	// Announce until heard: the listener may not be listening yet.
	waitHeard := func(block uint64) {
		t.Helper()
		want := market.Cursor{Block: block, Hash: common.Hash{byte(block)}}
		deadline := time.Now().Add(30 * time.Second)
		for {
			if err := speaker.Announce(ctx, want); err != nil {
				t.Fatal(err)
			}
			select {
			case got := <-heard:
				if got == want {
					return
				}
			case <-time.After(200 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				t.Fatalf("announcement of block %d never heard", block)
			}
		}
	}
	waitHeard(1)
	for b := uint64(2); b < 12; b++ {
		if err := speaker.Announce(ctx, market.Cursor{Block: b, Hash: common.Hash{byte(b)}}); err != nil {
			t.Fatal(err)
		}
	}
	for b := uint64(2); b < 12; b++ {
		select {
		case got := <-heard:
			if got.Block != b {
				t.Fatalf("heard block %d, want %d", got.Block, b)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("block %d not heard", b)
		}
	}
	// Kill the listener's connection: the driver reconnects and listens again.
	admin := mustConnector(t, dsn)
	defer admin.Close()
	var killed int
	if err := admin.QueryRowContext(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE pid <> pg_backend_pid() AND datname = current_database() AND (query ILIKE 'LISTEN%' OR query ILIKE '%bun:ping%')`).Scan(&killed); err != nil || killed == 0 {
		t.Fatalf("killing the listener's connection: %d killed, %v", killed, err)
	}
	waitHeard(100)

	if _, err := openDB(t, bunstore.Config{DSN: t.TempDir() + "/x.db"}).Announcer(); err == nil {
		t.Error("an announcer on SQLite")
	}
}

// A job signal on PostgreSQL wakes a runner listening on another connection; on SQLite there is
// none (one process wakes its runner in process).
func TestJobSignalPostgres(t *testing.T) {
	t.Parallel()
	if _, err := openDB(t, bunstore.Config{DSN: t.TempDir() + "/one.db"}).JobSignal(); err == nil {
		t.Fatal("a job signal on SQLite")
	}
	dsn := postgresSchema(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listener, err := openDB(t, bunstore.Config{DSN: dsn}).JobSignal()
	if err != nil {
		t.Fatal(err)
	}
	speaker, err := openDB(t, bunstore.Config{DSN: dsn}).JobSignal()
	if err != nil {
		t.Fatal(err)
	}
	heard := make(chan struct{}, 100)
	go listener.Listen(ctx, func() { heard <- struct{}{} })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := speaker.Signal(ctx); err != nil {
			t.Fatal(err)
		}
		select {
		case <-heard:
			return
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the signal was never heard")
		}
	}
}
