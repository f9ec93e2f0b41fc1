-- Compact trades, fee claims and holders (README's "Scale" gives the bytes per trade and per
-- holder pair before and after).
--
-- trades: the amounts are big-endian bytes without leading zeros (binAmount; zero is no bytes);
-- side and venue are codes (side 1 buy, 2 sell; venue 1 curve, 2 pool; 0 neither, as written by
-- hand); recipient is empty when it is the trader; the block hash is kept once per block in
-- trade_blocks; quote_approx is gone (amount_float(quote_amount) ranks by volume). A trade is
-- identified by (block_number, log_index), as it is by (tx_hash, log_index) on a chain. The
-- table is clustered on that key, which serves the idempotent inserts, Touched and Rollback;
-- each index ends in that key, so trades_token_block serves a token's trades newest first,
-- trades_token_time a token's trades by time (ordered by the hour first, as the reads order them
-- on both databases: see tradeHour), and trades_time every token's trades in a window.
-- trades.token keeps no foreign key, as on PostgreSQL: Apply refuses trades of tokens that are
-- not stored, and Rollback deletes the trades of a block before its launches.
-- fee_claims: the amount in bytes too, clustered on (block_number, log_index).
-- holders: the balance is 32 big-endian bytes, which SQLite compares byte by byte, so in the
-- order of the numbers; the table is clustered on (token, holder).
--
-- amount_from_decimal and balance_from_decimal are Go functions the store registers with the
-- driver (functions.go).

CREATE TABLE trades_compact (
	block_number  BIGINT   NOT NULL,
	log_index     INTEGER  NOT NULL,
	block_time    BIGINT   NOT NULL,
	side          SMALLINT NOT NULL,
	venue         SMALLINT NOT NULL,
	token         BLOB     NOT NULL,
	tx_hash       BLOB     NOT NULL,
	trader        BLOB     NOT NULL,
	recipient     BLOB     NOT NULL,
	quote_amount  BLOB     NOT NULL,
	token_amount  BLOB     NOT NULL,
	fee           BLOB     NOT NULL,
	creator_fee   BLOB     NOT NULL,
	refund        BLOB     NOT NULL,
	price         BLOB     NOT NULL,
	reserve_quote BLOB     NOT NULL,
	reserve_token BLOB     NOT NULL,
	PRIMARY KEY (block_number, log_index)
) WITHOUT ROWID;

INSERT INTO trades_compact
SELECT block_number, log_index, block_time,
	CASE side WHEN 'buy' THEN 1 WHEN 'sell' THEN 2 WHEN '' THEN 0 END,
	CASE venue WHEN 'curve' THEN 1 WHEN 'pool' THEN 2 WHEN '' THEN 0 END,
	token, tx_hash, trader, CASE WHEN recipient = trader THEN X'' ELSE recipient END,
	amount_from_decimal(quote_amount), amount_from_decimal(token_amount), amount_from_decimal(fee),
	amount_from_decimal(creator_fee), amount_from_decimal(refund), amount_from_decimal(price),
	amount_from_decimal(reserve_quote), amount_from_decimal(reserve_token)
FROM trades ORDER BY block_number, log_index;

-- The hash of each block that holds trades, written with its first trades and deleted with them.
CREATE TABLE trade_blocks (
	block_number INTEGER PRIMARY KEY,
	block_hash   BLOB    NOT NULL
);

INSERT INTO trade_blocks
SELECT block_number, block_hash FROM trades AS t
WHERE log_index = (SELECT MIN(log_index) FROM trades AS f WHERE f.block_number = t.block_number);

DROP TABLE trades;
ALTER TABLE trades_compact RENAME TO trades;
CREATE INDEX trades_token_block ON trades (token, block_number, log_index);
CREATE INDEX trades_token_time ON trades (token, block_time / 3600, block_time);
CREATE INDEX trades_time ON trades (block_time);

CREATE TABLE fee_claims_compact (
	block_number BIGINT NOT NULL,
	log_index    BIGINT NOT NULL,
	block_time   BIGINT NOT NULL,
	token        BLOB   NOT NULL REFERENCES tokens (address),
	curve        BLOB   NOT NULL,
	creator      BLOB   NOT NULL,
	quote        BLOB   NOT NULL,
	tx_hash      BLOB   NOT NULL,
	amount       BLOB   NOT NULL,
	PRIMARY KEY (block_number, log_index)
) WITHOUT ROWID;

INSERT INTO fee_claims_compact
SELECT block_number, log_index, block_time, token, curve, creator, quote, tx_hash, amount_from_decimal(amount)
FROM fee_claims ORDER BY block_number, log_index;

DROP TABLE fee_claims;
ALTER TABLE fee_claims_compact RENAME TO fee_claims;
CREATE INDEX fee_claims_token ON fee_claims (token);

CREATE TABLE holders_compact (
	token         BLOB   NOT NULL REFERENCES tokens (address),
	holder        BLOB   NOT NULL,
	balance       BLOB   NOT NULL,
	changed_block BIGINT NOT NULL,
	PRIMARY KEY (token, holder)
) WITHOUT ROWID;

INSERT INTO holders_compact
SELECT token, holder, balance_from_decimal(balance), changed_block FROM holders ORDER BY token, holder;

DROP TABLE holders;
ALTER TABLE holders_compact RENAME TO holders;
CREATE INDEX holders_largest ON holders (token, balance DESC, holder);
CREATE INDEX holders_changed ON holders (changed_block);
