-- Holders and discovery. holders keeps every (token, holder) pair a Transfer ever moved, with its
-- balance now (zero-padded to 78 digits so that byte order is numeric order) and the block of the
-- last Transfer that moved it: a reorganization restores the pairs changed after the block it
-- keeps. Rows at zero stay for that reason; the holder count and lists skip them.
CREATE TABLE holders (
	token         BYTEA  NOT NULL REFERENCES tokens (address),
	holder        BYTEA  NOT NULL,
	balance       TEXT   COLLATE "C" NOT NULL,
	changed_block BIGINT NOT NULL,
	PRIMARY KEY (token, holder)
);

CREATE INDEX holders_largest ON holders (token, balance, holder);
CREATE INDEX holders_changed ON holders (changed_block);

-- What the discovery orders read, kept current by every Apply: the holder count; when the token
-- graduated (block time, 0 on the curve); the trending components (decaying sums over trades,
-- expressed at discovery.trend_at) and their score; the opening price (the curve's, scaled as
-- trades.price) and the price changes over an hour and a day (0.1 = +10%).
ALTER TABLE tokens ADD COLUMN holders BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN graduated_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN trend_hour DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN trend_day DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN trend_score DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN open_price DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN change_1h DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN change_24h DOUBLE PRECISION NOT NULL DEFAULT 0;

-- Tokens stored before: the graduation happened in the transaction of the last curve trade, and
-- every token of the factory has 18 decimals (a price scale of 10^36).
UPDATE tokens SET graduated_at = COALESCE((SELECT MAX(block_time) FROM trades
	WHERE trades.token = tokens.address AND trades.venue = 'curve'), created_at) WHERE graduated;
UPDATE tokens SET open_price = CAST(virtual_quote0 AS DOUBLE PRECISION) * 1e36 / CAST(virtual_token0 AS DOUBLE PRECISION)
	WHERE virtual_token0 <> '0';

CREATE INDEX tokens_trending ON tokens (trend_score, launch_block, launch_log, address);
CREATE INDEX tokens_change_1h ON tokens (change_1h, launch_block, launch_log, address);
CREATE INDEX tokens_change_24h ON tokens (change_24h, launch_block, launch_log, address);

-- One row, always there: the time the trending components are expressed at (the block time of
-- the last batch; 0 before the first). Every write of the indexer locks it first, so that
-- writers that would each touch many tokens' discovery columns take their turns.
CREATE TABLE discovery (
	id       INTEGER PRIMARY KEY CHECK (id = 1),
	trend_at BIGINT  NOT NULL
);
INSERT INTO discovery (id, trend_at) VALUES (1, 0);

-- The king of the hill of each pairing asset (the zero address for ETH): its curve token with the
-- highest market cap, and the block time since which it holds the crown.
CREATE TABLE kings (
	quote BYTEA PRIMARY KEY,
	token BYTEA NOT NULL,
	since BIGINT NOT NULL
);
