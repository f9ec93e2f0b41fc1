package agent_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/curvekit/curvekit/adapters/bunstore"
	"github.com/curvekit/curvekit/agent"
)

// benchDB opens an agent database: SQLite in a temporary file, or Postgres in a schema of its
// own when CURVEKIT_TEST_POSTGRES is set (skipped otherwise).
func benchDB(b *testing.B, dialect string) *bunstore.DB {
	b.Helper()
	dsn := filepath.Join(b.TempDir(), "bench.db")
	if dialect == "postgres" {
		base := os.Getenv("CURVEKIT_TEST_POSTGRES")
		if base == "" {
			b.Skip("CURVEKIT_TEST_POSTGRES is not set")
		}
		var r [8]byte
		rand.Read(r[:])
		schema := "agent_bench_" + hex.EncodeToString(r[:])
		conn, err := pgdriver.NewDriver().OpenConnector(base)
		if err != nil {
			b.Fatal(err)
		}
		admin := sql.OpenDB(conn)
		if _, err := admin.Exec("CREATE SCHEMA " + schema); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { admin.Exec("DROP SCHEMA " + schema + " CASCADE"); admin.Close() })
		u, _ := url.Parse(base)
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		dsn = u.String()
	}
	db, err := bunstore.Open(context.Background(), bunstore.Config{DSN: dsn})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	// As the server does at start.
	if err := db.Warm(context.Background()); err != nil {
		b.Fatal(err)
	}
	return db
}

// benchService is the agent with the offline planner over an empty market: the measure is the
// job machinery, not the chain.
func benchService(b *testing.B, db *bunstore.DB) *agent.Service {
	svc, _ := countedService(b, db)
	return svc
}

// countedService is benchService with its store's reads of jobs counted.
func countedService(b *testing.B, db *bunstore.DB) (*agent.Service, *reads) {
	return watchedService(b, db, agent.Config{MaxPending: 1000})
}

func percentile(d []time.Duration, p float64) time.Duration {
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

// Job created → completed with the offline planner and the runner's default workers and poll (a
// submission wakes it), at 1 and 50 concurrent clients, each submitting and polling like a
// client: every 5 ms or every 50 ms, against a service watching the jobs' changes as the server's
// does. Reports p50 and p99 of the server-side time from creation to completion, and how many
// polls per job read the store.
func BenchmarkJobRoundTrip(b *testing.B) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		for _, load := range []struct {
			clients int
			poll    time.Duration
		}{{1, 5 * time.Millisecond}, {50, 5 * time.Millisecond}, {50, 50 * time.Millisecond}} {
			clients := load.clients
			b.Run(fmt.Sprintf("%s/clients=%d/poll=%v", dialect, clients, load.poll), func(b *testing.B) {
				db := benchDB(b, dialect)
				svc, store := countedService(b, db)
				r, err := agent.NewRunner(agent.RunnerConfig{Logger: quiet}, svc)
				if err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { r.Run(ctx); close(done) }()
				defer func() { cancel(); <-done }()

				var mu sync.Mutex
				var lat []time.Duration
				jobs := make(chan int)
				var wg sync.WaitGroup
				b.ResetTimer()
				for c := range clients {
					w := common.BytesToAddress([]byte{byte(c + 1), 0xab})
					wg.Go(func() {
						for range jobs {
							j, err := svc.Submit(ctx, agent.SubmitParams{Wallet: w, Prompt: "remember my slippage is 1%"})
							if err != nil {
								b.Error(err)
								return
							}
							for !j.Status.Terminal() {
								time.Sleep(load.poll)
								if j, err = svc.Job(ctx, w, j.ID); err != nil {
									b.Error(err)
									return
								}
							}
							mu.Lock()
							lat = append(lat, j.CompletedAt.Sub(j.CreatedAt))
							mu.Unlock()
						}
					})
				}
				for i := range b.N {
					jobs <- i
				}
				close(jobs)
				wg.Wait()
				b.StopTimer()
				b.ReportMetric(float64(percentile(lat, 0.5).Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(percentile(lat, 0.99).Microseconds())/1000, "p99-ms")
				b.ReportMetric(float64(store.n.Load())/float64(b.N), "reads/job")
			})
		}
	}
}

// Time from the call of a streamed turn to its first event.
func BenchmarkPromptFirstEvent(b *testing.B) {
	db := benchDB(b, "sqlite")
	svc := benchService(b, db)
	w := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	var first []time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		var at time.Duration
		_, err := svc.Prompt(context.Background(), agent.TurnParams{Wallet: w, Prompt: "remember my slippage is 1%"}, func(agent.Event) error {
			if at == 0 {
				at = time.Since(start)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		first = append(first, at)
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(first, 0.5).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(first, 0.99).Microseconds())/1000, "p99-ms")
}

// GET /agent/job/:id as the service serves it: one read by primary key, in parallel.
func BenchmarkJobRead(b *testing.B) {
	for _, dialect := range []string{"sqlite", "postgres"} {
		b.Run(dialect, func(b *testing.B) {
			db := benchDB(b, dialect)
			svc := benchService(b, db)
			w := common.HexToAddress("0x00000000000000000000000000000000000000aa")
			j, err := svc.Submit(context.Background(), agent.SubmitParams{Wallet: w, Prompt: "trending tokens"})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := svc.Job(context.Background(), w, j.ID); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reads/s")
		})
	}
}
