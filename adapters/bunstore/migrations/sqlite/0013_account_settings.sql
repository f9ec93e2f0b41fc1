-- Account settings (the wallet's second guard and the agent profile): one JSON document per account,
-- versioned so that a change is a compare-and-set; the activity log of every change and every
-- refusal, newest first by (at, id). Times are Unix nanoseconds.
CREATE TABLE account_settings (
	account_id TEXT   PRIMARY KEY,
	document   TEXT   NOT NULL,
	version    BIGINT NOT NULL,
	updated_at BIGINT NOT NULL
);

CREATE TABLE account_activity (
	id         TEXT   PRIMARY KEY,
	account_id TEXT   NOT NULL,
	at         BIGINT NOT NULL,
	kind       TEXT   NOT NULL,
	code       TEXT   NOT NULL DEFAULT '',
	message    TEXT   NOT NULL,
	actor      TEXT   NOT NULL,
	changes    TEXT   NOT NULL DEFAULT ''
);

CREATE INDEX account_activity_list ON account_activity (account_id, at, id);

-- What left each custodial wallet per pairing asset (asset: 20 bytes, zero for ETH; amount: a
-- decimal string of base units), recorded with the nonce reservation of the transaction that
-- spends it, so a daily cap is checked and the spend recorded under the wallet's lock. A spend
-- whose transaction definitely failed is released once (released_at set); the rest count for 24
-- hours from spent_at.
CREATE TABLE wallet_spends (
	id          TEXT   PRIMARY KEY,
	wallet_id   TEXT   NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	nonce       BIGINT NOT NULL,
	asset       BLOB   NOT NULL,
	amount      TEXT   NOT NULL,
	spent_at    BIGINT NOT NULL,
	released_at BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX wallet_spends_window ON wallet_spends (wallet_id, spent_at);
CREATE INDEX wallet_spends_nonce ON wallet_spends (wallet_id, nonce);
