package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/curvekit/curvekit"
)

// RunnerConfig configures a Runner.
type RunnerConfig struct {
	// ID names the runner in leases; default a random id. Two live runners must not share one.
	ID string
	// Workers is how many jobs run at once; default DefaultWorkers of the service's planner.
	Workers int
	// Lease is how long a claim stays valid without a heartbeat; default 30s. Heartbeat is
	// how often a worker renews it; default Lease/3.
	Lease     time.Duration
	Heartbeat time.Duration
	// Poll is how often an idle runner looks for jobs when nothing wakes it (one worker looks,
	// and wakes the others when it finds one); default 500ms.
	Poll time.Duration
	// NoteDelay is how long a turn's progress note may wait to be written together with the
	// notes after it; default 200ms. A turn that ends sooner writes its notes with its answer,
	// in the same step, so a quick job costs no writes of its own for them.
	NoteDelay time.Duration
	// Rescue is how often the rescuer looks for expired leases; default Lease/2.
	Rescue time.Duration
	// MaxAttempts is how many claims a job gets before a lost lease fails it; default 3.
	MaxAttempts int
	// TurnTimeout bounds one turn; default 2 minutes.
	TurnTimeout time.Duration
	// Observe, when set, is told how each claimed job ended and how long its turn took: outcome
	// is "completed", "failed", "lost" (another runner holds the lease now) or "stopped" (the
	// runner stopped mid-turn; the rescuer requeues the job). The server counts it as metrics.
	Observe func(outcome string, took time.Duration)
	Logger  *slog.Logger
}

func (c *RunnerConfig) withDefaults() {
	if c.ID == "" {
		c.ID = newID("runner_")
	}
	if c.Lease == 0 {
		c.Lease = 30 * time.Second
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = c.Lease / 3
	}
	if c.Poll == 0 {
		c.Poll = 500 * time.Millisecond
	}
	if c.NoteDelay == 0 {
		c.NoteDelay = 200 * time.Millisecond
	}
	if c.Rescue == 0 {
		c.Rescue = c.Lease / 2
	}
	if c.MaxAttempts == 0 {
		c.MaxAttempts = 3
	}
	if c.TurnTimeout == 0 {
		c.TurnTimeout = 2 * time.Minute
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

func (c *RunnerConfig) validate() error {
	if c.Workers < 0 || c.Lease < 0 || c.Heartbeat < 0 || c.Poll < 0 || c.NoteDelay < 0 || c.Rescue < 0 || c.MaxAttempts < 0 || c.TurnTimeout < 0 {
		return errors.New("agent: runner settings must not be negative")
	}
	if c.Heartbeat >= c.Lease {
		return fmt.Errorf("agent: heartbeat %s must be shorter than the lease %s", c.Heartbeat, c.Lease)
	}
	return nil
}

// Runner works off the job queue: its workers claim pending jobs, keep their leases alive, run
// the turn and complete or fail the job fenced by the lease; its rescuer hands the jobs of dead
// runners back to the queue. Several runners, in one process or many, may share a JobStore.
type Runner struct {
	cfg RunnerConfig
	svc *Service
}

// Message of a job that lost its lease too often (its runners kept dying).
const interruptedMessage = "the job was interrupted too many times; submit it again"

// NewRunner returns a runner of svc's jobs.
func NewRunner(cfg RunnerConfig, svc *Service) (*Runner, error) {
	cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if svc == nil {
		return nil, errors.New("agent: runner needs a Service")
	}
	if cfg.Workers == 0 {
		cfg.Workers = DefaultWorkers(svc.cfg.LLM)
	}
	return &Runner{cfg: cfg, svc: svc}, nil
}

// DefaultWorkers is how many jobs a runner runs at once unless told: what the planner can take.
// The offline planner is a few database reads and writes per turn, so a runner keeps many jobs
// in flight (8 per CPU, at least 16) and a burst of jobs does not queue behind a few workers; a
// remote LLM is bounded by its provider's concurrency limit, typically a handful of requests per
// key, which 4 stays under. A nil llm is the offline planner, as in Config.
func DefaultWorkers(llm LLM) int {
	if _, offline := llm.(Offline); offline || llm == nil {
		return max(16, 8*runtime.GOMAXPROCS(0))
	}
	return 4
}

// Workers is how many jobs the runner runs at once.
func (r *Runner) Workers() int { return r.cfg.Workers }

// ID returns the runner's id.
func (r *Runner) ID() string { return r.cfg.ID }

// Run works until ctx is done and returns once every worker stopped. A job in flight when ctx
// ends is neither completed nor failed: its lease runs out and a rescuer returns it to the queue.
func (r *Runner) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	wg.Go(func() { r.rescuer(ctx) })
	if sig := r.svc.cfg.Signal; sig != nil {
		wg.Go(func() {
			if err := sig.Listen(ctx, r.svc.nudge); err != nil && ctx.Err() == nil {
				r.cfg.Logger.WarnContext(ctx, "agent: listening for new jobs stopped; polling", "runner", r.cfg.ID, "err", err)
			}
		})
	}
	for i := range r.cfg.Workers {
		wg.Go(func() { r.worker(ctx, i == 0) })
	}
	wg.Wait()
	return nil
}

func (r *Runner) rescuer(ctx context.Context) {
	t := time.NewTicker(r.cfg.Rescue)
	defer t.Stop()
	for {
		n, err := r.svc.cfg.Jobs.RescueExpired(ctx, &RescueParams{Now: r.svc.now(), MaxAttempts: r.cfg.MaxAttempts, Error: interruptedMessage, Events: r.svc.jobEvents()})
		if err != nil && ctx.Err() == nil {
			r.cfg.Logger.WarnContext(ctx, "agent: rescue failed", "runner", r.cfg.ID, "err", err)
		} else if n > 0 {
			r.cfg.Logger.InfoContext(ctx, "agent: rescued jobs with expired leases", "runner", r.cfg.ID, "jobs", n)
			r.svc.nudge()
			r.svc.committed() // a job out of attempts failed with its event
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// worker claims and runs jobs until ctx ends. An idle worker sleeps until a submission, a rescue
// or another worker's claim wakes it; only the polling one also looks every Poll, in case a
// wake-up was lost (another process's signal while its listener reconnected), and a job it finds
// wakes the others in turn.
func (r *Runner) worker(ctx context.Context, polls bool) {
	for ctx.Err() == nil {
		now := r.svc.now()
		mark := r.svc.live.begin()
		job, err := r.svc.cfg.Jobs.ClaimJob(ctx, &ClaimJobParams{Runner: r.cfg.ID, Now: now, LeaseUntil: now.Add(r.cfg.Lease)})
		if err == nil {
			r.svc.live.put(job, mark) // this process's polls see the claim at once
			// More may be waiting: wake another idle worker before working on this one, so
			// a burst of jobs spreads over the workers instead of queueing behind the one
			// that was woken.
			r.svc.nudge()
			r.process(ctx, job)
			continue
		}
		if !errors.Is(err, curvekit.ErrNotFound) && ctx.Err() == nil {
			r.cfg.Logger.WarnContext(ctx, "agent: claim failed", "runner", r.cfg.ID, "err", err)
		}
		var poll <-chan time.Time
		if polls {
			poll = time.After(r.cfg.Poll)
		}
		select {
		case <-ctx.Done():
		case <-r.svc.wake:
		case <-poll:
		}
	}
}

var errLeaseLost = errors.New("agent: lease lost")

// process runs one claimed job to its end, unless the runner stops or loses the lease first.
func (r *Runner) process(ctx context.Context, job Job) {
	lease := Lease{JobID: job.ID, Runner: r.cfg.ID, Attempt: job.Attempts}
	started := r.svc.now()
	outcome := "stopped"
	if r.cfg.Observe != nil {
		defer func() { r.cfg.Observe(outcome, r.svc.now().Sub(started)) }()
	}
	log := r.cfg.Logger.With("runner", r.cfg.ID, "job", job.ID, "attempt", job.Attempts)
	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	beats := make(chan struct{})
	go func() {
		defer close(beats)
		t := time.NewTicker(r.cfg.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-jctx.Done():
				return
			case <-t.C:
			}
			err := r.svc.cfg.Jobs.Heartbeat(jctx, lease, r.svc.now().Add(r.cfg.Lease))
			r.svc.live.change(job.ID)
			if errors.Is(err, curvekit.ErrConflict) {
				cancel(errLeaseLost)
				return
			}
			if err != nil && jctx.Err() == nil {
				log.WarnContext(jctx, "agent: heartbeat failed", "err", err)
			}
		}
	}()
	notes := &noteBuffer{delay: r.cfg.NoteDelay, write: func(ups []StatusUpdate) {
		if err := r.svc.cfg.Jobs.AddStatusUpdates(jctx, lease, ups); err != nil && jctx.Err() == nil {
			log.WarnContext(jctx, "agent: status update failed", "err", err)
		}
		r.svc.live.change(job.ID) // this process's next poll reads the notes
	}}
	progress := func(_ context.Context, note string) { notes.add(StatusUpdate{Message: note, Timestamp: r.svc.now()}) }
	tctx, stop := context.WithTimeout(jctx, r.cfg.TurnTimeout)
	res, err := r.svc.turn(tctx, &TurnParams{
		Wallet: job.Wallet, ReadOnly: job.ReadOnly, ThreadID: job.ThreadID, Prompt: job.Prompt, History: job.History, Model: job.Model, Progress: progress,
	}, func(Event) error { return nil })
	timedOut := errors.Is(tctx.Err(), context.DeadlineExceeded) && jctx.Err() == nil
	stop()
	last := notes.end()
	lost := errors.Is(context.Cause(jctx), errLeaseLost)
	cancel(nil)
	<-beats
	switch {
	case ctx.Err() != nil:
		// The runner is stopping: leave the job to the rescuer rather than fail it.
		return
	case lost:
		outcome = "lost"
		log.InfoContext(ctx, "agent: lease lost; the job is someone else's now")
		return
	case timedOut:
		err = fmt.Errorf("%w: the agent took longer than %s", curvekit.ErrLimited, r.cfg.TurnTimeout)
	}
	at := r.svc.now()
	if err != nil {
		outcome = "failed"
		if failed, ferr := r.svc.cfg.Jobs.FailJob(ctx, &FailJobParams{Lease: lease, Error: ClientMessage(err), At: at, StatusUpdates: last, Events: r.svc.jobEvents()}); ferr != nil {
			log.WarnContext(ctx, "agent: fail job", "err", ferr)
		} else {
			r.svc.ended.put(failed)
			r.svc.committed()
		}
		log.InfoContext(ctx, "agent: job failed", "err", err)
		return
	}
	// The job's answer and its turn in the thread land together.
	turn := &Turn{Prompt: job.Prompt, Response: res.Response, At: at}
	done, err := r.svc.cfg.Jobs.CompleteJob(ctx, &CompleteJobParams{Lease: lease, Response: res.Response, RichData: res.RichData(), At: at, Turn: turn,
		StatusUpdates: last, Events: r.svc.jobEvents()})
	if err != nil {
		log.WarnContext(ctx, "agent: complete job", "err", err)
		return
	}
	r.svc.ended.put(done)
	r.svc.committed()
	outcome = "completed"
}

// noteBuffer holds a turn's progress notes: a note waits at most delay, and the notes that
// arrive meanwhile are written with it in one step; what still waits when the turn ends is the
// caller's to write with the job's end.
type noteBuffer struct {
	delay time.Duration
	write func([]StatusUpdate)

	writing sync.Mutex // held across a write, so the end waits for one under way
	mu      sync.Mutex
	waiting []StatusUpdate
	timer   *time.Timer
	ended   bool
}

func (b *noteBuffer) add(u StatusUpdate) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return
	}
	b.waiting = append(b.waiting, u)
	if b.timer == nil {
		b.timer = time.AfterFunc(b.delay, b.flush)
	}
}

func (b *noteBuffer) flush() {
	b.writing.Lock()
	defer b.writing.Unlock()
	b.mu.Lock()
	ups := b.waiting
	b.waiting, b.timer = nil, nil
	b.mu.Unlock()
	if len(ups) > 0 {
		b.write(ups)
	}
}

// end stops the buffer once any write under way has finished, and returns the notes not
// written, in order.
func (b *noteBuffer) end() []StatusUpdate {
	b.mu.Lock()
	b.ended = true
	if b.timer != nil {
		b.timer.Stop()
	}
	b.mu.Unlock()
	b.writing.Lock()
	defer b.writing.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	ups := b.waiting
	b.waiting = nil
	return ups
}
