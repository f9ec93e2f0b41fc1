package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/curvekit/curvekit/adapters/llm"
	"github.com/curvekit/curvekit/agent"
)

// wireAgent builds the agent on the shared database, market and launch services, with the
// offline planner unless an OpenAI-compatible endpoint is configured, and starts its job runner
// and its watch of the jobs' changes; both stop when the app closes, leaving any job in flight to
// the next runner's rescuer.
func (a *App) wireAgent(ctx context.Context) (err error) {
	store := a.DB.Agent() // one value for the three ports: a turn reads memory and thread at once
	cfg := agent.Config{
		Jobs: store, Memory: store, Threads: store, Market: a.Market, Balances: a.Chain,
		// Polls of jobs in flight are answered from memory between changes (svc.WatchJobs).
		Changes:  store,
		Notifier: a.sources(), // job.completed and job.failed
		Orders:   a.Orders,
		Profiles: agent.ProfilesFunc(a.agentProfile),
		Logger:   a.Log.With("component", "agent"),
	}
	if a.Launch != nil {
		cfg.Launcher = a.Launch
	}
	if a.DB.Postgres() {
		// Replicas share the job queue: a job submitted to one wakes the runners of all.
		if cfg.Signal, err = a.DB.JobSignal(); err != nil {
			return err
		}
	}
	if a.Config.LLMBaseURL != "" {
		c, err := llm.New(llm.Config{BaseURL: a.Config.LLMBaseURL, Model: a.Config.LLMModel, APIKey: a.Config.LLMAPIKey})
		if err != nil {
			return err
		}
		cfg.LLM, cfg.Model = c, c.Model()
	}
	svc, err := agent.New(cfg)
	if err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	jobs := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "curvekit", Subsystem: "agent", Name: "job_duration_seconds",
		Help:    "Jobs this server's runner ended, by outcome (completed, failed, lost, stopped), and their turn's duration.",
		Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
	}, []string{"outcome"})
	if err := a.Metrics.Register(jobs); err != nil {
		return err
	}
	runner, err := agent.NewRunner(agent.RunnerConfig{
		Workers: a.Config.AgentWorkers, // 0: what the planner can take
		Logger:  a.Log.With("component", "agent-runner"),
		Observe: func(outcome string, took time.Duration) { jobs.WithLabelValues(outcome).Observe(took.Seconds()) },
	}, svc)
	if err != nil {
		return err
	}
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { runner.Run(rctx) })
	wg.Go(func() { svc.WatchJobs(rctx) })
	a.onClose(func() error { stop(); wg.Wait(); return nil })
	a.Agent = svc
	planner := cfg.Model
	if planner == "" {
		planner = agent.OfflineModel
	}
	if a.Config.LLMBaseURL != "" {
		a.Log.Info("agent", "planner", planner, "workers", runner.Workers(), "llm", a.Config.LLMBaseURL)
	} else {
		a.Log.Info("agent", "planner", planner, "workers", runner.Workers())
	}
	return nil
}
