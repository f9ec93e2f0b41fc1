-- The market store: chain binding, indexer cursor, tokens, trades and creator fee claims.
-- Addresses and hashes are raw bytes; amounts are exact decimal strings (market_cap is zero-padded
-- to 78 digits and collated "C", so that byte order is numeric order whatever the database locale).

CREATE TABLE chain (
	id           INTEGER PRIMARY KEY CHECK (id = 1),
	chain_id     TEXT    NOT NULL,
	genesis_hash BYTEA   NOT NULL,
	factory      BYTEA   NOT NULL
);

CREATE TABLE index_cursor (
	id           INTEGER PRIMARY KEY CHECK (id = 1),
	block_number BIGINT  NOT NULL,
	block_hash   BYTEA   NOT NULL
);

CREATE TABLE tokens (
	address            BYTEA   PRIMARY KEY,
	curve              BYTEA   NOT NULL,
	creator            BYTEA   NOT NULL,
	quote_address      BYTEA   NOT NULL,
	quote_symbol       TEXT    NOT NULL,
	quote_decimals     INTEGER NOT NULL,
	name               TEXT    NOT NULL,
	symbol             TEXT    NOT NULL,
	name_lower         TEXT    NOT NULL,
	symbol_lower       TEXT    NOT NULL,
	uri                TEXT    NOT NULL,
	decimals           INTEGER NOT NULL,
	total_supply       TEXT    NOT NULL,
	virtual_quote0     TEXT    NOT NULL,
	virtual_token0     TEXT    NOT NULL,
	token_supply       TEXT    NOT NULL,
	real_token0        TEXT    NOT NULL,
	graduation_quote   TEXT    NOT NULL,
	fee_bps            INTEGER NOT NULL,
	creator_share_bps  INTEGER NOT NULL,
	virtual_quote      TEXT    NOT NULL,
	virtual_token      TEXT    NOT NULL,
	real_quote         TEXT    NOT NULL,
	real_token         TEXT    NOT NULL,
	graduated          BOOLEAN NOT NULL,
	pool               BYTEA   NOT NULL,
	pool_fee_bps       INTEGER NOT NULL,
	pool_reserve_quote TEXT    NOT NULL,
	pool_reserve_token TEXT    NOT NULL,
	launch_block       BIGINT  NOT NULL,
	launch_tx          BYTEA   NOT NULL,
	launch_log         BIGINT  NOT NULL,
	created_at         BIGINT  NOT NULL,
	last_trade_at      BIGINT  NOT NULL,
	market_cap         TEXT    COLLATE "C" NOT NULL,
	progress           INTEGER NOT NULL
);

CREATE INDEX tokens_newest ON tokens (launch_block, launch_log, address);
CREATE INDEX tokens_market_cap ON tokens (market_cap, launch_block, launch_log, address);
CREATE INDEX tokens_progress ON tokens (progress, launch_block, launch_log, address);

CREATE TABLE trades (
	tx_hash       BYTEA  NOT NULL,
	log_index     BIGINT NOT NULL,
	token         BYTEA  NOT NULL REFERENCES tokens (address),
	block_number  BIGINT NOT NULL,
	block_hash    BYTEA  NOT NULL,
	block_time    BIGINT NOT NULL,
	trader        BYTEA  NOT NULL,
	recipient     BYTEA  NOT NULL,
	side          TEXT   NOT NULL,
	venue         TEXT   NOT NULL,
	quote_amount  TEXT   NOT NULL,
	token_amount  TEXT   NOT NULL,
	fee           TEXT   NOT NULL,
	creator_fee   TEXT   NOT NULL,
	refund        TEXT   NOT NULL,
	price         TEXT   NOT NULL,
	reserve_quote TEXT   NOT NULL,
	reserve_token TEXT   NOT NULL,
	-- quote_amount as a float, only to rank tokens by 24h volume in SQL.
	quote_approx  DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (tx_hash, log_index)
);

CREATE INDEX trades_token_block ON trades (token, block_number, log_index);
CREATE INDEX trades_token_time ON trades (token, block_time, block_number, log_index);
CREATE INDEX trades_time ON trades (block_time, token, quote_approx);

CREATE TABLE fee_claims (
	tx_hash      BYTEA  NOT NULL,
	log_index    BIGINT NOT NULL,
	token        BYTEA  NOT NULL REFERENCES tokens (address),
	curve        BYTEA  NOT NULL,
	creator      BYTEA  NOT NULL,
	quote        BYTEA  NOT NULL,
	amount       TEXT   NOT NULL,
	block_number BIGINT NOT NULL,
	block_time   BIGINT NOT NULL,
	PRIMARY KEY (tx_hash, log_index)
);

CREATE INDEX fee_claims_token ON fee_claims (token);
