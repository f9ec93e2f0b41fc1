-- Push: webhook subscriptions, the events sources published, and their deliveries. Signing
-- secrets are sealed with a per-secret data key wrapped by the master key (as wallets' keys are);
-- secret_* is the current one, prev_* the one it replaced, which signs beside it until
-- prev_until. Types and tokens are JSON arrays. Times are Unix nanoseconds; failing_since and
-- prev_until are 0 when unset.
CREATE TABLE push_subscriptions (
	id              TEXT    PRIMARY KEY,
	account_id      TEXT    NOT NULL,
	url             TEXT    NOT NULL,
	types           TEXT    NOT NULL,
	tokens          TEXT    NOT NULL,
	min_size        TEXT    NOT NULL,
	enabled         BOOLEAN NOT NULL,
	secret_version  BIGINT  NOT NULL,
	secret_key      BLOB   NOT NULL,
	secret          BLOB   NOT NULL,
	prev_version    BIGINT  NOT NULL DEFAULT 0,
	prev_key        BLOB,
	prev_secret     BLOB,
	prev_until      BIGINT  NOT NULL DEFAULT 0,
	failing_since   BIGINT  NOT NULL DEFAULT 0,
	disabled_reason TEXT    NOT NULL DEFAULT '',
	created_at      BIGINT  NOT NULL,
	updated_at      BIGINT  NOT NULL
);

CREATE INDEX push_subscriptions_account ON push_subscriptions (account_id, created_at);

-- Events by their stable id; seq orders an account's events (account_id '' for market events),
-- in commit order: writers of account events serialize on a lock.
CREATE TABLE push_events (
	seq        INTEGER PRIMARY KEY,
	id         TEXT    NOT NULL UNIQUE,
	type       TEXT    NOT NULL,
	account_id TEXT    NOT NULL,
	at         BIGINT  NOT NULL,
	data       TEXT    NOT NULL
);

CREATE INDEX push_events_account ON push_events (account_id, seq);

-- One event on its way to one subscription. tries counts the attempts of the current retry
-- schedule, attempts all of them; claimed_by and claimed_until are the claim of the replica
-- sending it.
CREATE TABLE push_deliveries (
	id              TEXT    PRIMARY KEY,
	subscription_id TEXT    NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
	event_id        TEXT    NOT NULL,
	state           TEXT    NOT NULL,
	tries           INTEGER NOT NULL DEFAULT 0,
	attempts        INTEGER NOT NULL DEFAULT 0,
	next_at         BIGINT  NOT NULL,
	claimed_by      TEXT    NOT NULL DEFAULT '',
	claimed_until   BIGINT  NOT NULL DEFAULT 0,
	created_at      BIGINT  NOT NULL,
	updated_at      BIGINT  NOT NULL,
	UNIQUE (subscription_id, event_id)
);

CREATE INDEX push_deliveries_due ON push_deliveries (next_at) WHERE state = 'pending';
CREATE INDEX push_deliveries_log ON push_deliveries (subscription_id, created_at, id);

-- Each attempt of a delivery: the receiver's status (0 without an answer), the latency in
-- nanoseconds, and the start of its answer.
CREATE TABLE push_attempts (
	delivery_id TEXT    NOT NULL REFERENCES push_deliveries (id) ON DELETE CASCADE,
	n           INTEGER NOT NULL,
	at          BIGINT  NOT NULL,
	status      INTEGER NOT NULL,
	latency     BIGINT  NOT NULL,
	response    TEXT    NOT NULL,
	error       TEXT    NOT NULL,
	PRIMARY KEY (delivery_id, n)
);
