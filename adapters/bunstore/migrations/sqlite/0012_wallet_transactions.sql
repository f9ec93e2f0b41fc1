-- Transactions the custodial wallets sent, one row per nonce they were sent under, whatever the
-- replacements: hashes holds every hash sent (32 bytes each, oldest first), hash the current one
-- or the one mined. The tracker follows the open ones (state pending or replaced) to a receipt;
-- claimed_by and claimed_until are the lease one replica holds while it replaces a transaction.
-- Times are Unix nanoseconds; amounts (value, fees, gas_price) decimal strings of wei.
CREATE TABLE wallet_transactions (
	id            TEXT   PRIMARY KEY,
	wallet_id     TEXT   NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	from_address  BLOB   NOT NULL,
	nonce         BIGINT NOT NULL,
	chain_id      BIGINT NOT NULL,
	to_address    BLOB   NOT NULL,
	value         TEXT   NOT NULL,
	data          BLOB,
	gas           BIGINT NOT NULL,
	max_fee       TEXT   NOT NULL,
	max_tip       TEXT   NOT NULL,
	hash          BLOB   NOT NULL,
	hashes        BLOB   NOT NULL,
	state         TEXT   NOT NULL,
	sent_at       BIGINT NOT NULL,
	sent_block    BIGINT NOT NULL,
	block_number  BIGINT NOT NULL DEFAULT 0,
	gas_used      BIGINT NOT NULL DEFAULT 0,
	gas_price     TEXT   NOT NULL DEFAULT '0',
	claimed_by    TEXT   NOT NULL DEFAULT '',
	claimed_until BIGINT NOT NULL DEFAULT 0,
	updated_at    BIGINT NOT NULL
);

CREATE INDEX wallet_transactions_list ON wallet_transactions (wallet_id, sent_at, id);
CREATE INDEX wallet_transactions_open ON wallet_transactions (sent_at) WHERE state IN ('pending', 'replaced');
