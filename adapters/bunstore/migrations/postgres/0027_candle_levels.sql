-- Candle levels: each token's hours and days with trades, UTC-aligned (span 3600 and 86400,
-- bucket the span's start), beside the minutes of candle_bars (migration 0022). A row is the
-- candles.Minute of the span's trades (candles.Minute.Join: first, highest, lowest and last price,
-- exact volume, count, last trade), in candle_bars' columns and encodings; it rolls up exactly
-- at every resolution its span divides. A candle request reads the coarsest span its resolution
-- is a multiple of (market.BarSpan): 1h over 30 days reads 720 rows instead of up to 43,200, 1d
-- over 1,000 days 1,000 instead of up to 1.44 million. Apply folds the trades it stores into them
-- as into the minutes, Rollback recomputes those it cuts from the minutes left.
-- overflow is 1 for an hour or day whose volumes sum to 2^128 or more (a fold of its trades
-- refuses it; its volume then holds 2^128-1): only its close and last trade may be read, as the
-- bar before a window. A minute that would overflow fails its batch, as before.
--
-- A table of its own rather than a span column in candle_bars' key: the minute table, by far the
-- largest, is neither rebuilt (SQLite cannot change a primary key in place, PostgreSQL would
-- rewrite it and its index) nor widened, and its statements stay as they are; hours and days
-- share one key (token, span, bucket), so an Apply reads and writes both with one statement
-- each, and a read of one level is one range of that key.
CREATE TABLE candle_levels (
	token        BYTEA  NOT NULL REFERENCES tokens (address),
	span         BIGINT NOT NULL,
	bucket       BIGINT NOT NULL,
	open_bits    BIGINT NOT NULL,
	high_bits    BIGINT NOT NULL,
	low_bits     BIGINT NOT NULL,
	close_bits   BIGINT NOT NULL,
	volume_hi    BIGINT NOT NULL,
	volume_lo    BIGINT NOT NULL,
	trades       BIGINT NOT NULL,
	last_block   BIGINT NOT NULL,
	last_log     BIGINT NOT NULL,
	overflow     BIGINT NOT NULL,
	PRIMARY KEY (token, span, bucket)
);

-- Tokens with minute bars before the levels: the store computes their hours and days from the
-- minute rows when it opens (Go: the prices are IEEE 754 bits, the volumes two halves) and
-- deletes each row when its token is done.
CREATE TABLE candle_levels_pending (
	token BYTEA PRIMARY KEY
);
INSERT INTO candle_levels_pending (token)
	SELECT address FROM tokens WHERE EXISTS (SELECT 1 FROM candle_bars WHERE candle_bars.token = tokens.address);
