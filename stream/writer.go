package stream

// Writer sends a stream's output to its client. adapters/httpapi implements it over an
// http.ResponseWriter.
type Writer interface {
	// Write sends events, in order, and flushes them: none may wait in a buffer once Write
	// returns. The slice is the caller's again after Write returns (it is reused): a Writer
	// that keeps events copies them.
	Write(events []Event) error
	// Heartbeat sends the Heartbeat comment and flushes it.
	Heartbeat() error
}
