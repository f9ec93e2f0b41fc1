package agent

import "time"

// KeepLiveJobsFor changes how long a job in flight is answered from memory (liveFor).
func (s *Service) KeepLiveJobsFor(d time.Duration) {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	s.live.keep = d
}

// WatchingJobs reports whether a watch of the jobs' changes is ready.
func (s *Service) WatchingJobs() bool {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	return s.live.ready
}
