-- Push's relay positions: how far a source whose own log is the outbox (the market's, ordered by
-- the indexer's cursor) was turned into events. A position moves in the transaction that records
-- the events it covers (compare-and-set on the previous one), so a relay that stopped anywhere
-- resumes from it and records nothing twice.
CREATE TABLE push_relays (
	source     TEXT   PRIMARY KEY,
	position   TEXT   NOT NULL,
	updated_at BIGINT NOT NULL
);
