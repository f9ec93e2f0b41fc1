// Package bunstore implements curvekit's store ports on bun, over SQLite (modernc.org/sqlite, no
// cgo) or PostgreSQL (pgdriver), chosen by the DSN. The schema is embedded as plain SQL, one
// directory per dialect, and migrated when Open opens the database. A DB is opened once; each port has its
// store on it (DB.Market, ...).
//
// Representation (migrations/*/0023_compact_storage.sql says why, with the bytes it saves):
//   - addresses and hashes are raw bytes (BLOB / BYTEA);
//   - the amounts of tokens are exact base-10 strings; the market-cap sort column is zero-padded
//     to 78 digits (2^256-1 has 78), so byte order equals numeric order (Postgres collates it "C");
//   - the amounts of trades and fee claims are big-endian bytes without leading zeros (binAmount),
//     summed exactly in Go; amount_float(column) reads one as a float where SQL ranks by it;
//   - a trade's side and venue are small codes (sideCode, venueCode), its recipient no bytes when
//     it is the trader, its block hash a row of trade_blocks per block;
//   - a holder's balance is NUMERIC(78,0) on PostgreSQL and 32 big-endian bytes on SQLite, so that
//     both order it as a number (holderBalance);
//   - on PostgreSQL the per-token trade indexes lead with token_key(token), 8 bytes of the address
//     (functions.go): a read of one token's trades says token_key(tr.token) = ? besides
//     tr.token = ?, and a read by time bounds and orders by the hour first (tradeHour).
//   - candle_bars keeps one candles.Minute per token and minute with trades (bars.go): prices as
//     the BIGINT of their IEEE 754 bits, the 128-bit volume as two BIGINT halves. Apply folds the
//     trades it stores into them, Rollback recomputes the minutes it cuts, and Open fills the bars
//     of a store whose trades predate them. candle_levels keeps the five minutes, hours and days the
//     same way (key token, span, bucket; migration 0027 says why a table of its own, 0035 adds
//     the five minutes): Apply folds the
//     trades into them as well, Rollback recomputes those it cuts from the minutes left, Open
//     coarsens the minutes of a store that predates them, and a candle request reads the coarsest
//     span its resolution is a multiple of. The minutes also bound the read of the last trade
//     before a window (TradesBetween): it walks trades_token_block back from the last trade of
//     the latest minute up to the window's start, not the hour of a busy token's trades.
//   - a token's day (Day: its 24-hour volume, counts and reference price) is the discovery
//     figures its tokens row keeps as of the discovery clock (discovery.go), read with the clock
//     in one statement: no trade is read. On PostgreSQL the keys of the discovery orders are
//     copied to token_ranks (migration 0034), which those lists walk, so that the figures a block
//     moves are HOT updates of tokens.
//
// Page cursors are opaque to callers: base64url (unpadded) of a short text that names the order
// and holds the keyset of the last row returned, every order descending and ending in the newest
// launch (launch block, launch log index, address):
//
//	n:<launchBlock>:<launchLog>:<address>               newest
//	m:<marketCap>:<launchBlock>:<launchLog>:<address>   marketCap (decimal, unpadded)
//	p:<progressBps>:<launchBlock>:<launchLog>:<address> progress
//	v:<volumeRank>:<launchBlock>:<launchLog>:<address>  volume24h (and t: trending, g1: gainers1h,
//	                                                    g24: gainers24h, l24: losers24h, each
//	                                                    with its stored figure)
//	t:<block>:<logIndex>                                a token's trades
//	h:<balance>:<holder>                                a token's holders
//
// A cursor with another tag, or one that does not parse, is curvekit.ErrInvalid.
//
// SQLite notes: the store runs WAL with synchronous=NORMAL (a power cut may lose the last commits,
// but the indexer cursor is lost with them, so the indexer writes them again), checkpointed by a
// connection of its own in the background rather than by the commits (checkpoint.go), a busy timeout,
// foreign keys, and BEGIN IMMEDIATE transactions so that concurrent writers queue instead of
// failing. The agent's writes, the busiest, also queue in process, since a writer that meets the
// busy timeout sleeps before it retries (Agent.writing), and its statements run prepared, each
// write one statement where it can (liteQueries): SQLite runs in the process, and compiling each
// statement's text was a quarter of its CPU under a burst of jobs. An in-memory database
// (":memory:", "file::memory:", "mode=memory") lives in one connection, because each modernc
// connection to it would be a separate database.
package bunstore
