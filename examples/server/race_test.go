//go:build race

package main

// raceDetector: the suite runs under -race. The tests of server processes then skip (see
// mustServerBinary).
const raceDetector = true
