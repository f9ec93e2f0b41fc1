//go:build !race

package gethtest

const raceDetector = false
