//go:build race

package httpapi

// raceDetector: the suite runs under -race. The export's heap test then skips: it measures a
// server process of its own, which the detector's instrumentation would measure instead, and the
// plain suite runs it.
const raceDetector = true
