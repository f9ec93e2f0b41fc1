-- Custodial wallets, one per account: the private key sealed with a per-wallet data key, which is
-- wrapped by the master key of version key_version. next_nonce is the next nonce ReserveNonce
-- hands out; released nonces wait in wallet_released_nonces for reuse so that no gap stays.
CREATE TABLE wallets (
	id          TEXT    PRIMARY KEY,
	account_id  TEXT    NOT NULL UNIQUE,
	address     BLOB   NOT NULL UNIQUE,
	key_version BIGINT  NOT NULL,
	data_key    BLOB   NOT NULL,
	private_key BLOB   NOT NULL,
	next_nonce  BIGINT  NOT NULL DEFAULT 0,
	created_at  BIGINT  NOT NULL
);

CREATE TABLE wallet_released_nonces (
	wallet_id TEXT   NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	nonce     BIGINT NOT NULL,
	PRIMARY KEY (wallet_id, nonce)
);

-- Sign-and-submit requests by idempotency key; response is NULL while the request is in flight.
CREATE TABLE wallet_idempotency (
	account_id   TEXT    NOT NULL,
	idem_key     TEXT    NOT NULL,
	request_hash BLOB   NOT NULL,
	response     BLOB,
	created_at   BIGINT  NOT NULL,
	PRIMARY KEY (account_id, idem_key)
);

-- Every private key export, kept.
CREATE TABLE wallet_exports (
	id           INTEGER PRIMARY KEY,
	account_id   TEXT    NOT NULL,
	wallet_id    TEXT    NOT NULL,
	address      BLOB   NOT NULL,
	signed_in_at BIGINT  NOT NULL,
	exported_at  BIGINT  NOT NULL
);

CREATE INDEX wallet_exports_account ON wallet_exports (account_id, id);
