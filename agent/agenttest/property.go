package agenttest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/curvekit/curvekit"
	"github.com/curvekit/curvekit/agent"
)

// modelJob is what the property test expects a job to be.
type modelJob struct {
	id         string
	wallet     common.Address
	created    time.Time
	status     agent.Status
	attempts   int
	holder     agent.Lease // set while processing
	leaseUntil time.Time
	terminals  int // successful moves into a terminal state
}

// machine drives a JobStore and a model of it side by side with an injected clock.
type machine struct {
	t       *testing.T
	s       agent.JobStore
	rng     *rand.Rand
	now     time.Time
	jobs    []*modelJob
	held    map[string][]agent.Lease // what each runner believes it holds
	nextID  int
	seed    uint64
	step    int
	maxTry  int
	lease   time.Duration
	pending int // cap per wallet
}

var runners = []string{"runner-1", "runner-2"}

func (m *machine) fatalf(format string, args ...any) {
	m.t.Helper()
	m.t.Fatalf("seed %d step %d: %s", m.seed, m.step, fmt.Sprintf(format, args...))
}

func (m *machine) find(id string) *modelJob {
	for _, j := range m.jobs {
		if j.id == id {
			return j
		}
	}
	return nil
}

// move records an expected move of j to next and checks it is one the machine allows.
func (m *machine) move(j *modelJob, next agent.Status) {
	m.t.Helper()
	if !j.status.CanMove(next) {
		m.fatalf("job %s would move %s → %s, which the status machine forbids", j.id, j.status, next)
	}
	j.status = next
	if next.Terminal() {
		j.terminals++
	}
}

func (m *machine) insert() {
	ctx := context.Background()
	w := []common.Address{walletA, walletB}[m.rng.IntN(2)]
	id := fmt.Sprintf("job-%03d", m.nextID)
	m.nextID++
	n := 0
	for _, j := range m.jobs {
		if j.wallet == w && j.status == agent.StatusPending {
			n++
		}
	}
	_, err := m.s.InsertJob(ctx, &agent.InsertJobParams{ID: id, ThreadID: id, Wallet: w, Prompt: "p", CreatedAt: m.now, MaxPending: m.pending})
	if n >= m.pending {
		if !errors.Is(err, curvekit.ErrLimited) {
			m.fatalf("insert over the cap: %v", err)
		}
		return
	}
	if err != nil {
		m.fatalf("insert: %v", err)
	}
	m.jobs = append(m.jobs, &modelJob{id: id, wallet: w, created: m.now, status: agent.StatusPending})
}

func (m *machine) claim(runner string) {
	var want *modelJob
	for _, j := range m.jobs {
		if j.status == agent.StatusPending && (want == nil || j.created.Before(want.created) || (j.created.Equal(want.created) && j.id < want.id)) {
			want = j
		}
	}
	got, err := m.s.ClaimJob(context.Background(), &agent.ClaimJobParams{Runner: runner, Now: m.now, LeaseUntil: m.now.Add(m.lease)})
	if want == nil {
		if !errors.Is(err, curvekit.ErrNotFound) {
			m.fatalf("claim with nothing pending: %+v, %v", got, err)
		}
		return
	}
	if err != nil || got.ID != want.id || got.Attempts != want.attempts+1 || got.Runner != runner {
		m.fatalf("claim = %s attempt %d by %q, %v; want %s attempt %d by %s", got.ID, got.Attempts, got.Runner, err, want.id, want.attempts+1, runner)
	}
	m.move(want, agent.StatusProcessing)
	want.attempts++
	want.holder = leaseOf(got)
	want.leaseUntil = m.now.Add(m.lease)
	m.held[runner] = append(m.held[runner], want.holder)
}

// pickLease returns one of the leases runner believes it holds, maybe a stale one.
func (m *machine) pickLease(runner string) (agent.Lease, bool) {
	ls := m.held[runner]
	if len(ls) == 0 {
		return agent.Lease{}, false
	}
	return ls[m.rng.IntN(len(ls))], true
}

func (m *machine) drop(runner string, l agent.Lease) {
	m.held[runner] = slices.DeleteFunc(m.held[runner], func(x agent.Lease) bool { return x == l })
}

func (m *machine) holds(l agent.Lease) *modelJob {
	j := m.find(l.JobID)
	if j != nil && j.status == agent.StatusProcessing && j.holder == l {
		return j
	}
	return nil
}

func (m *machine) fenced(op string, l agent.Lease, err error) *modelJob {
	m.t.Helper()
	j := m.holds(l)
	switch {
	case j != nil && err != nil:
		m.fatalf("%s by the holder %+v: %v", op, l, err)
	case j == nil && !errors.Is(err, curvekit.ErrConflict):
		m.fatalf("%s by %+v, which does not hold the job: %v; want a conflict (held by two runners)", op, l, err)
	}
	return j
}

func (m *machine) heartbeat(runner string) {
	l, ok := m.pickLease(runner)
	if !ok {
		return
	}
	err := m.s.Heartbeat(context.Background(), l, m.now.Add(m.lease))
	if j := m.fenced("heartbeat", l, err); j != nil {
		j.leaseUntil = m.now.Add(m.lease)
	}
}

func (m *machine) finish(runner string, complete bool) {
	l, ok := m.pickLease(runner)
	if !ok {
		return
	}
	var err error
	if complete {
		_, err = m.s.CompleteJob(context.Background(), &agent.CompleteJobParams{Lease: l, Response: "answer " + l.JobID, At: m.now})
	} else {
		_, err = m.s.FailJob(context.Background(), &agent.FailJobParams{Lease: l, Error: "failed " + l.JobID, At: m.now})
	}
	if j := m.fenced(map[bool]string{true: "complete", false: "fail"}[complete], l, err); j != nil {
		m.move(j, map[bool]agent.Status{true: agent.StatusCompleted, false: agent.StatusFailed}[complete])
		j.holder = agent.Lease{}
	}
	m.drop(runner, l)
}

func (m *machine) cancel() {
	if len(m.jobs) == 0 {
		return
	}
	j := m.jobs[m.rng.IntN(len(m.jobs))]
	w := j.wallet
	if m.rng.IntN(4) == 0 {
		w = common.Address{0x01}
	}
	_, err := m.s.CancelJob(context.Background(), &agent.CancelJobParams{ID: j.id, Wallet: w, At: m.now})
	switch {
	case w != j.wallet:
		if !errors.Is(err, curvekit.ErrForbidden) {
			m.fatalf("cancel by another wallet: %v", err)
		}
	case j.status == agent.StatusPending:
		if err != nil {
			m.fatalf("cancel of a pending job: %v", err)
		}
		m.move(j, agent.StatusCancelled)
	default:
		if !errors.Is(err, curvekit.ErrConflict) {
			m.fatalf("cancel of a %s job: %v; want a conflict", j.status, err)
		}
	}
}

func (m *machine) rescue() {
	want := 0
	for _, j := range m.jobs {
		if j.status == agent.StatusProcessing && j.leaseUntil.Before(m.now) {
			want++
			if j.attempts >= m.maxTry {
				m.move(j, agent.StatusFailed)
			} else {
				m.move(j, agent.StatusPending)
			}
			j.holder = agent.Lease{}
		}
	}
	n, err := m.s.RescueExpired(context.Background(), &agent.RescueParams{Now: m.now, MaxAttempts: m.maxTry, Error: "interrupted"})
	if err != nil || n != want {
		m.fatalf("rescue = %d, %v; want %d", n, err, want)
	}
}

// check compares every job in the store with the model.
func (m *machine) check() {
	m.t.Helper()
	for _, j := range m.jobs {
		g, err := m.s.GetJob(context.Background(), j.id)
		if err != nil {
			m.fatalf("get %s: %v", j.id, err)
		}
		if g.Status != j.status || g.Attempts != j.attempts || g.Runner != j.holder.Runner {
			m.fatalf("job %s is %s attempt %d held by %q; model says %s attempt %d held by %q",
				j.id, g.Status, g.Attempts, g.Runner, j.status, j.attempts, j.holder.Runner)
		}
		if j.terminals > 1 {
			m.fatalf("job %s reached a terminal state %d times", j.id, j.terminals)
		}
		switch g.Status {
		case agent.StatusCancelled:
			if g.CancelledAt.IsZero() || !g.CompletedAt.IsZero() || g.Error != "" || g.Response != "" {
				m.fatalf("cancelled job %+v", g)
			}
		case agent.StatusCompleted:
			if g.CompletedAt.IsZero() || !g.CancelledAt.IsZero() || g.Error != "" || g.Response == "" {
				m.fatalf("completed job %+v", g)
			}
		case agent.StatusFailed:
			if g.CompletedAt.IsZero() || !g.CancelledAt.IsZero() || g.Error == "" || g.Response != "" {
				m.fatalf("failed job %+v", g)
			}
		}
	}
}

func testJobMachineProperty(t *testing.T, s Stores) {
	seed := rand.Uint64()
	m := &machine{
		t: t, s: s.Jobs, rng: rand.New(rand.NewPCG(seed, 0x5eed)), now: t0, held: map[string][]agent.Lease{},
		seed: seed, maxTry: 3, lease: time.Second, pending: 3,
	}
	for m.step = 0; m.step < 300; m.step++ {
		runner := runners[m.rng.IntN(len(runners))]
		switch r := m.rng.IntN(100); {
		case r < 15:
			m.insert()
		case r < 35:
			m.claim(runner)
		case r < 50:
			m.heartbeat(runner)
		case r < 62:
			m.finish(runner, true)
		case r < 67:
			m.finish(runner, false)
		case r < 75:
			m.cancel()
		case r < 85:
			m.rescue()
		default:
			m.now = m.now.Add(time.Duration(m.rng.IntN(700)) * time.Millisecond)
		}
		m.check()
	}
	// Drain: every job must reach exactly one terminal state.
	for range 4 * m.maxTry * len(m.jobs) {
		m.now = m.now.Add(2 * m.lease)
		m.rescue()
		m.claim(runners[0])
		m.finish(runners[0], true)
		m.check()
	}
	for _, j := range m.jobs {
		if !j.status.Terminal() || j.terminals != 1 {
			t.Fatalf("seed %d: job %s ended %s after %d terminal moves", seed, j.id, j.status, j.terminals)
		}
	}
	t.Logf("seed %d: %d jobs", seed, len(m.jobs))
}
