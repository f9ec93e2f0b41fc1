package candles

import "errors"

// Sentinel errors. Compare with errors.Is; returned errors wrap them with detail.
var (
	// ErrResolution reports a resolution other than 1m, 5m, 15m, 1h, 4h and 1d.
	ErrResolution = errors.New("candles: unknown resolution")
	// ErrInvalidTrade reports a trade with a negative, NaN or infinite price, or a time outside
	// [MinTime, MaxTime].
	ErrInvalidTrade = errors.New("candles: invalid trade")
	// ErrOutOfOrder reports a trade that is not after the last one folded, or that falls in a
	// bucket older than the current bar. The fold is unchanged; rebuild it from stored trades.
	ErrOutOfOrder = errors.New("candles: trade out of order")
	// ErrOverflow reports a bar volume that would exceed 2^128-1 base units.
	ErrOverflow = errors.New("candles: volume overflow")
	// ErrInvalidRange reports range parameters that are inconsistent or out of bounds.
	ErrInvalidRange = errors.New("candles: invalid range")
)
