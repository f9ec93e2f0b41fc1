-- Launches the custodial wallets signed, by the nonce reserved for them: ReserveNonce counts those
-- of the day whose tx_hash the indexer has not recorded against the daily launch limit, in the
-- transaction that reserves the nonce, and ReleaseNonce deletes the row with the nonce.
-- signed_at is Unix nanoseconds; tx_hash is NULL between the reservation and the signature.
CREATE TABLE wallet_launches (
	wallet_id TEXT   NOT NULL REFERENCES wallets (id) ON DELETE CASCADE,
	nonce     BIGINT NOT NULL,
	signed_at BIGINT NOT NULL,
	tx_hash   BLOB,
	PRIMARY KEY (wallet_id, nonce)
);

CREATE INDEX wallet_launches_day ON wallet_launches (wallet_id, signed_at);
