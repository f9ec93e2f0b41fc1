-- The API key that placed an order ('' when a session did): a fire applies that key's
-- restrictions as they are at fire time, and a key revoked since cancels the order.
ALTER TABLE orders ADD COLUMN key_id TEXT NOT NULL DEFAULT '';
