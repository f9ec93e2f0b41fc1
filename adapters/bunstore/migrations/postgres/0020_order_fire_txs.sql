-- Every transaction an order's fire sent, in the order sent (n from 0): an approval ahead of a
-- sell the wallet's allowance did not cover, then the trade. A fire sent before this table
-- existed lists its trade, which order_fires.tx_hash holds.
CREATE TABLE order_fire_txs (
	fire_id    TEXT    NOT NULL REFERENCES order_fires (id) ON DELETE CASCADE,
	n          INTEGER NOT NULL,
	kind       TEXT    NOT NULL,
	hash       TEXT    NOT NULL,
	created_at BIGINT  NOT NULL,
	PRIMARY KEY (fire_id, n),
	UNIQUE (fire_id, hash)
);

INSERT INTO order_fire_txs (fire_id, n, kind, hash, created_at)
SELECT id, 0, 'trade', tx_hash, updated_at FROM order_fires WHERE tx_hash <> '';
