-- How far the orders engine evaluated the indexer's commits: the cursor (block and hash) of the
-- last sync whose trades it evaluated. It moves in the leader's fenced transaction that records
-- the fires of those trades, so a new leader evaluates exactly what the last one did not.
CREATE TABLE order_position (
	name       TEXT   PRIMARY KEY,
	block      BIGINT NOT NULL,
	hash       TEXT   NOT NULL,
	updated_at BIGINT NOT NULL
);
