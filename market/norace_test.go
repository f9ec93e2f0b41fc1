//go:build !race

package market_test

const raceDetector = false
