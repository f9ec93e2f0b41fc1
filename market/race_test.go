//go:build race

package market_test

// raceDetector: the suite runs under -race. The long single-goroutine properties (the indexer
// stopped at every step, the exports against the reads) then skip: they run in the plain suite,
// and the detector, which checks memory shared between goroutines, finds nothing in them that the
// concurrent tests do not exercise, at nine times their cost.
const raceDetector = true
