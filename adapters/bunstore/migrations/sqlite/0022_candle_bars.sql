-- Candle bars: one row per token and minute with trades, kept by every Apply and Rollback, from
-- which every resolution is rolled up (package candles, Minute). Prices are the display floats of
-- the fold: the first, highest, lowest and last trade price of the minute, each stored as the
-- BIGINT of its IEEE 754 bits, so that every driver gives back the same bits (a decimal literal
-- need not). Prices are never negative: their bits order as the numbers do. The volume is exact,
-- the two 64-bit halves of a 128-bit amount (each stored as the signed BIGINT of its bits). The
-- last trade's block and log index make the close well defined and let a batch applied again
-- skip the trades already folded.
CREATE TABLE candle_bars (
	token        BLOB   NOT NULL REFERENCES tokens (address),
	minute       BIGINT NOT NULL,
	open_bits    BIGINT NOT NULL,
	high_bits    BIGINT NOT NULL,
	low_bits     BIGINT NOT NULL,
	close_bits   BIGINT NOT NULL,
	volume_hi    BIGINT NOT NULL,
	volume_lo    BIGINT NOT NULL,
	trades       BIGINT NOT NULL,
	last_block   BIGINT NOT NULL,
	last_log     BIGINT NOT NULL,
	PRIMARY KEY (token, minute)
);

-- Tokens whose trades were stored before the bars: the display price needs the token's quote
-- decimals and the fold's float conversion, so the store fills their bars when it opens (Go,
-- not SQL) and deletes each row when its token is done.
CREATE TABLE candle_bars_pending (
	token BLOB PRIMARY KEY
);
INSERT INTO candle_bars_pending (token) SELECT DISTINCT token FROM trades;
