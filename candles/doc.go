// Package candles folds trades into OHLCV bars. It is the one computation behind the REST candles
// endpoint, the live SSE bar stream and reconnect replay, so all three agree bar for bar.
//
// # Rules
//
//   - A bar covers one bucket: bucket = floor(ts / resolution) * resolution, in Unix seconds, and
//     Bar.Time is the bucket start. Floor, not truncation: ts = -1 lies in the bucket starting at -60
//     for 1m.
//   - The first bar of a series opens at the first trade's price. Every later bar opens at the
//     previous bar's close (the price at its start), and its high and low include that open.
//   - A quiet bucket (no trade) is flat at the previous close with zero volume and zero trades.
//   - There is nothing before the first trade: a series starts at the bucket of its first trade, or
//     at the window start when a trade before the window seeds it.
//   - Trades are folded in chain order, by (Block, Index), strictly increasing. A trade that is not
//     after the last one folded, or whose bucket is older than the current bar, is refused with
//     ErrOutOfOrder: the caller rebuilds (a reorg, a replayed log) instead of patching history.
//
// # Numbers
//
// Volume is the pairing-asset notional in base units (wei for ETH), exact: a 128-bit unsigned
// integer (Volume) summed with math/bits and an overflow check, without allocation. 2^128 wei is
// 3.4e20 ETH, far above any supply, so overflow is an error, not a wrap.
//
// Prices are float64 display values, as the architecture allows for derived prices in bars. A
// trade's price is a ratio of two exact integers (quote per token, scaled by both assets'
// decimals); a ratio has no exact finite integer form in general, and a fixed-point integer in
// quote base units loses everything for a cheap token quoted in a 6-decimal asset. The caller
// computes the float from the exact amounts once, at the edge. This package never does arithmetic
// on a price: it only compares and copies, so every open, high, low and close is bit for bit one of
// the input prices and the three consumers cannot drift apart.
//
// # Use
//
// Folder is the incremental fold: the live stream keeps one per token and resolution and calls Add
// per trade (same-bucket updates are in place and allocation-free). Range runs the same Folder over
// stored trades to produce the series of a window for REST and replay, flat-filling quiet buckets up
// to the window's end.
//
// A store need not read every trade of a window: Minute summarizes one minute of trades (first,
// high, low and last price, exact volume, count, last chain position), and since every resolution
// is a whole number of minutes, Folder.AddMinute folds a minute exactly as its trades would be
// folded. Roller (and RangeMinutes) computes a window's bars from its minutes and the last minute
// before it, page by page, equal bar for bar to Range over the trades behind them. The same
// summary of an hour or a day (Minute.Join, Coarsen) folds exactly into every resolution its span
// divides, so a store that also keeps hours and days reads one row per hour for 1h and 4h windows
// and one per day for 1d.
package candles
