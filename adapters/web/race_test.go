//go:build race

package web_test

// raceDetector: the suite runs under -race. The browser tests then skip: the same tests run in
// the plain suite, and a race-instrumented server driven by Chromium would take both cores from
// the timed stream tests of the packages that run beside it.
const raceDetector = true
