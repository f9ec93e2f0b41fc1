-- Compact trades, fee claims and holders (README's "Scale" gives the bytes per trade and per
-- holder pair before and after).
--
-- trades: the amounts are big-endian bytes without leading zeros (binAmount; zero is no bytes);
-- side and venue are codes (side 1 buy, 2 sell; venue 1 curve, 2 pool; 0 neither, as written by
-- hand); recipient is empty when it is the trader (empty rather than NULL: a row with a NULL
-- carries a null bitmap, 8 bytes with its alignment); the block hash is kept once per block in
-- trade_blocks; quote_approx is gone (amount_float(quote_amount) ranks by volume). A trade is
-- identified by (block_number, log_index), as it is by (tx_hash, log_index) on a chain. The rows
-- are written in chain order, so:
--   - trades_token_block, unique on (token_key(token), block_number, log_index), makes a batch
--     applied again insert nothing and serves a token's trades newest first;
--   - trades_token_time, on (token_key(token), block_time / 3600), serves a token's trades by
--     time: the reads order by the hour first (tradeHour), then sort the rows of each hour. A
--     token's trades of one hour share one key, which the btree keeps once with the list of
--     their rows (deduplication): 14 bytes per trade, where (token_key(token), block_time) took 43;
--   - BRIN on block_number (Touched, Rollback) and on block_time (every token's trades in a
--     window) take a few pages where each btree took 30 to 100 bytes per trade; with 32 pages a
--     range (not 128), the planner prefers the BRIN to a walk of all of trades_token_time for a
--     window of minutes, which then reads about 128 pages where that walk read 700.
-- No index leads with the address itself (see token_key below), so trades.token keeps no foreign
-- key, whose check on a token's deletion would scan the table: Apply refuses trades of tokens
-- that are not stored, and Rollback deletes the trades of a block before its launches.
-- fee_claims: the amount in bytes too; the primary key on (block_number, log_index) serves the
-- block reads the index fee_claims_block served.
-- holders: the balance is NUMERIC(78,0), which orders as a number. holders_largest serves a
-- token's holders largest first (then by holder, which the reads sort among equal balances) and
-- its ten largest; it leads with token_key(token) as the trade indexes do, and skips the pairs at
-- zero, which no read of it asks for. Every change of a balance adds an entry to each index of
-- holders until a vacuum, so their size counts more than once per pair.

-- The last 8 bytes of a token address as a signed 64-bit integer, the key of the per-token trade
-- indexes (the last, because addresses mined to be cheap start with zero bytes): a read of one
-- token's trades says token_key(tr.token) = token_key(?) AND tr.token = ?.
CREATE FUNCTION token_key(token BYTEA) RETURNS BIGINT LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	AS $$ SELECT ('x' || encode(substring(token FROM length(token) - 7 FOR 8), 'hex'))::bit(64)::bigint $$;

-- A binAmount as a float (the sum of its 56-bit parts), to rank by amounts in SQL.
CREATE FUNCTION amount_float(amount BYTEA) RETURNS DOUBLE PRECISION LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
	SELECT ('x' || substring(lpad(encode(amount, 'hex'), 70, '0') FROM 1 FOR 14))::bit(56)::bigint * 2::float8 ^ 224
		+ ('x' || substring(lpad(encode(amount, 'hex'), 70, '0') FROM 15 FOR 14))::bit(56)::bigint * 2::float8 ^ 168
		+ ('x' || substring(lpad(encode(amount, 'hex'), 70, '0') FROM 29 FOR 14))::bit(56)::bigint * 2::float8 ^ 112
		+ ('x' || substring(lpad(encode(amount, 'hex'), 70, '0') FROM 43 FOR 14))::bit(56)::bigint * 2::float8 ^ 56
		+ ('x' || substring(lpad(encode(amount, 'hex'), 70, '0') FROM 57 FOR 14))::bit(56)::bigint
$$;

-- An amount in the decimal text of the earlier schema as a binAmount.
CREATE FUNCTION amount_from_decimal(amount TEXT) RETURNS BYTEA LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
	n   NUMERIC;
	out BYTEA := '\x';
BEGIN
	IF length(amount) <= 18 THEN
		RETURN ltrim(int8send(amount::BIGINT), '\x00'::BYTEA);
	END IF;
	n := amount::NUMERIC;
	WHILE n > 0 LOOP
		out := substring(int8send(mod(n, 4294967296)::BIGINT) FROM 5) || out;
		n := div(n, 4294967296);
	END LOOP;
	RETURN ltrim(out, '\x00'::BYTEA);
END $$;

-- Fixed-width columns first, widest first, so that no row pads between columns.
CREATE TABLE trades_compact (
	block_number  BIGINT   NOT NULL,
	block_time    BIGINT   NOT NULL,
	log_index     INTEGER  NOT NULL,
	side          SMALLINT NOT NULL,
	venue         SMALLINT NOT NULL,
	token         BYTEA    NOT NULL,
	tx_hash       BYTEA    NOT NULL,
	trader        BYTEA    NOT NULL,
	recipient     BYTEA    NOT NULL,
	quote_amount  BYTEA    NOT NULL,
	token_amount  BYTEA    NOT NULL,
	fee           BYTEA    NOT NULL,
	creator_fee   BYTEA    NOT NULL,
	refund        BYTEA    NOT NULL,
	price         BYTEA    NOT NULL,
	reserve_quote BYTEA    NOT NULL,
	reserve_token BYTEA    NOT NULL
);

INSERT INTO trades_compact
SELECT block_number, block_time, log_index,
	CASE side WHEN 'buy' THEN 1 WHEN 'sell' THEN 2 WHEN '' THEN 0 END,
	CASE venue WHEN 'curve' THEN 1 WHEN 'pool' THEN 2 WHEN '' THEN 0 END,
	token, tx_hash, trader, CASE WHEN recipient = trader THEN '\x'::BYTEA ELSE recipient END,
	amount_from_decimal(quote_amount), amount_from_decimal(token_amount), amount_from_decimal(fee),
	amount_from_decimal(creator_fee), amount_from_decimal(refund), amount_from_decimal(price),
	amount_from_decimal(reserve_quote), amount_from_decimal(reserve_token)
FROM trades ORDER BY block_number, log_index;

-- The hash of each block that holds trades, written with its first trades and deleted with them.
CREATE TABLE trade_blocks (
	block_number BIGINT PRIMARY KEY,
	block_hash   BYTEA  NOT NULL
);

INSERT INTO trade_blocks
SELECT DISTINCT ON (block_number) block_number, block_hash FROM trades ORDER BY block_number, log_index;

DROP TABLE trades;
ALTER TABLE trades_compact RENAME TO trades;
CREATE UNIQUE INDEX trades_token_block ON trades (token_key(token), block_number, log_index);
CREATE INDEX trades_token_time ON trades (token_key(token), (block_time / 3600));
CREATE INDEX trades_block ON trades USING brin (block_number) WITH (pages_per_range = 32);
CREATE INDEX trades_time ON trades USING brin (block_time) WITH (pages_per_range = 32);

CREATE TABLE fee_claims_compact (
	block_number BIGINT NOT NULL,
	block_time   BIGINT NOT NULL,
	log_index    BIGINT NOT NULL,
	token        BYTEA  NOT NULL REFERENCES tokens (address),
	curve        BYTEA  NOT NULL,
	creator      BYTEA  NOT NULL,
	quote        BYTEA  NOT NULL,
	tx_hash      BYTEA  NOT NULL,
	amount       BYTEA  NOT NULL,
	PRIMARY KEY (block_number, log_index)
);

INSERT INTO fee_claims_compact
SELECT block_number, block_time, log_index, token, curve, creator, quote, tx_hash, amount_from_decimal(amount)
FROM fee_claims ORDER BY block_number, log_index;

DROP TABLE fee_claims;
ALTER TABLE fee_claims_compact RENAME TO fee_claims;
ALTER INDEX fee_claims_compact_pkey RENAME TO fee_claims_pkey;
CREATE INDEX fee_claims_token ON fee_claims (token);

CREATE TABLE holders_compact (
	changed_block BIGINT        NOT NULL,
	token         BYTEA         NOT NULL REFERENCES tokens (address),
	holder        BYTEA         NOT NULL,
	balance       NUMERIC(78,0) NOT NULL,
	PRIMARY KEY (token, holder)
);

INSERT INTO holders_compact
SELECT changed_block, token, holder, CAST(balance AS NUMERIC(78,0)) FROM holders ORDER BY token, holder;

DROP TABLE holders;
ALTER TABLE holders_compact RENAME TO holders;
ALTER INDEX holders_compact_pkey RENAME TO holders_pkey;
CREATE INDEX holders_largest ON holders (token_key(token), balance DESC) WHERE balance > 0;
CREATE INDEX holders_changed ON holders (changed_block);
