package agent

import "github.com/curvekit/curvekit/push"

// Notifier turns the end of a job the runner ended (completed or failed, or failed by the
// rescuer once out of attempts) into the events it causes. The store calls JobEvents with the
// job as it ends it and records the events in the same transaction (CompleteJobParams.Events,
// FailJobParams.Events, RescueParams.Events): the outbox, so that no end is committed without
// its events. Committed is told after such a commit, on the replica whose
// runner ended the job; it must not block.
type Notifier interface {
	JobEvents(j *Job) []push.Event
	Committed()
}

// jobEvents is what the store calls to build an ended job's events; nil without a Notifier.
func (s *Service) jobEvents() func(*Job) []push.Event {
	if s.cfg.Notifier == nil {
		return nil
	}
	return s.cfg.Notifier.JobEvents
}

// committed tells the Notifier that an end was committed with its events.
func (s *Service) committed() {
	if s.cfg.Notifier != nil {
		s.cfg.Notifier.Committed()
	}
}
