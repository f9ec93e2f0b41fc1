package agent

import "context"

// Notifier hears of each job the runner ended, completed or failed, once, after the store
// committed the end, on the replica whose runner ended it. It must not block for long.
type Notifier interface {
	JobEnded(ctx context.Context, j *Job)
}

// notify tells the Notifier, when there is one.
func (s *Service) notify(ctx context.Context, j *Job) {
	if s.cfg.Notifier != nil {
		s.cfg.Notifier.JobEnded(ctx, j)
	}
}
