// Package orders holds an account's standing orders on a token: limit buys and sells, stop-loss,
// take-profit and trailing-stop sells fired by the price, and DCA and TWAP schedules fired by the
// clock. It validates a request into an Order (listing every failing field), moves orders and
// their fires through one state machine, and keeps a trigger index per token sorted by trigger
// price, so evaluating a sync costs a look at the head of each list rather than a scan.
//
// Prices are exact integers: pairing-asset base units per whole token times market.PriceScale,
// the scale of a trade's execution price, so a cheap token keeps its digits.
//
// The Store port keeps orders and fires; orderstest is its conformance suite.
package orders
