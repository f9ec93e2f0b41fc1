package market

import "github.com/curvekit/curvekit/candles"

// CandleTrade is how the candle fold sees tr, a trade of t: its time, chain position, display
// price and pairing-asset notional. Candles uses it for REST and replay, and the live streams fold
// with it, so the three agree bar for bar.
func CandleTrade(t *Token, tr *Trade) candles.Trade { return candleTrade(t, tr) }
