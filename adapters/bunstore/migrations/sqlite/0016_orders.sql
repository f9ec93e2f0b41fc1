-- Orders: an account's standing orders and their fires. Amounts and prices are exact decimal
-- strings of base units (prices scaled as orders.Order.Price); times are Unix nanoseconds, 0
-- when unset; durations nanoseconds.
CREATE TABLE orders (
	id             TEXT    PRIMARY KEY,
	account_id     TEXT    NOT NULL,
	wallet         TEXT    NOT NULL,
	kind           TEXT    NOT NULL,
	class          TEXT    NOT NULL,
	token          TEXT    NOT NULL,
	quote          TEXT    NOT NULL,
	quote_decimals INTEGER NOT NULL,
	decimals       INTEGER NOT NULL,
	side           TEXT    NOT NULL,
	amount         TEXT    NOT NULL,
	percent_bps    INTEGER NOT NULL,
	price          TEXT    NOT NULL,
	trail_bps      INTEGER NOT NULL,
	high           TEXT    NOT NULL,
	slippage_bps   INTEGER NOT NULL,
	every_ns       BIGINT  NOT NULL,
	times          INTEGER NOT NULL,
	over_ns        BIGINT  NOT NULL,
	slices         INTEGER NOT NULL,
	expires_at     BIGINT  NOT NULL,
	state          TEXT    NOT NULL,
	fired          INTEGER NOT NULL,
	next_at        BIGINT  NOT NULL,
	reason         TEXT    NOT NULL,
	created_at     BIGINT  NOT NULL,
	updated_at     BIGINT  NOT NULL
);

CREATE INDEX orders_account ON orders (account_id, created_at, id);
CREATE INDEX orders_live ON orders (created_at, id) WHERE state IN ('open', 'triggered', 'sent');

-- One execution of an order; its id is the idempotency key of its transaction. term is the
-- indexer leadership term that recorded it.
CREATE TABLE order_fires (
	id         TEXT    PRIMARY KEY,
	order_id   TEXT    NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
	n          INTEGER NOT NULL,
	state      TEXT    NOT NULL,
	price      TEXT    NOT NULL,
	block      BIGINT  NOT NULL,
	log_index  BIGINT  NOT NULL,
	term       BIGINT  NOT NULL,
	tx_hash    TEXT    NOT NULL,
	amount_in  TEXT    NOT NULL,
	amount_out TEXT    NOT NULL,
	code       TEXT    NOT NULL,
	error      TEXT    NOT NULL,
	created_at BIGINT  NOT NULL,
	updated_at BIGINT  NOT NULL,
	UNIQUE (order_id, n)
);

CREATE INDEX order_fires_pending ON order_fires (created_at, id) WHERE state IN ('triggered', 'sent');
