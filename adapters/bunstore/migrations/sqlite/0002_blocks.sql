-- The cursors Apply wrote (the last block of each batch), newest kept: the indexer walks them
-- back to find where a reorganized chain forked from what it stored.
CREATE TABLE indexed_blocks (
	block_number BIGINT PRIMARY KEY,
	block_hash   BLOB   NOT NULL
);

CREATE INDEX fee_claims_block ON fee_claims (block_number);
CREATE INDEX trades_block ON trades (block_number);
