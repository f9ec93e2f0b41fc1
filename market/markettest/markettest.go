// Package markettest is the conformance suite of market.Store. Every implementation runs it from
// its own tests:
//
//	func TestStore(t *testing.T) {
//		markettest.Run(t, func(t *testing.T) market.Store { return newEmptyStore(t) })
//	}
//
// The suite checks behaviour the port documents - binding, atomic and idempotent batches, every
// order, filter and search of Tokens, pagination, ranges, exact sums, uint256 extremes - and
// never asks which implementation it runs on.
package markettest

import (
	"testing"

	"github.com/curvekit/curvekit/market"
)

// Run runs the suite. newStore must return an empty store of its own (no state shared with any
// other call) and arrange its cleanup with t.Cleanup; Run calls it from parallel subtests.
func Run(t *testing.T, newStore func(t *testing.T) market.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s market.Store)
	}{
		{"BindAndReset", testBindAndReset},
		{"ApplyRoundTrip", testApplyRoundTrip},
		{"UpdateKeepsLaunchFields", testUpdateKeepsLaunchFields},
		{"HostileText", testHostileText},
		{"ApplyIdempotent", testApplyIdempotent},
		{"ApplyAtomic", testApplyAtomic},
		{"ApplyCancelled", testApplyCancelled},
		{"NotFound", testNotFound},
		{"Extremes", testExtremes},
		{"TokenOrders", testTokenOrders},
		{"TokenSearch", testTokenSearch},
		{"FullCurve", testFullCurve},
		{"CountNames", testCountNames},
		{"TokenLimits", testTokenLimits},
		{"InvalidQueries", testInvalidQueries},
		{"TradesPages", testTradesPages},
		{"TradesBetween", testTradesBetween},
		{"Buyers", testBuyers},
		{"Bars", testBars},
		{"BarsProperty", testBarsProperty},
		{"Day", testDay},
		{"ConcurrentApply", testConcurrentApply},
		{"Rollback", testRollback},
		{"Holders", testHolders},
		{"Discovery", testDiscovery},
		{"FiguresFollowTheTrades", testFiguresFollowTheTrades},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newStore(t))
		})
	}
}
