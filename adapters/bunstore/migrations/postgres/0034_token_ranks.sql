-- The discovery orders (trending, 24h volume, 1h and 24h change) in a narrow table of their own,
-- token_ranks, beside the figures the tokens table keeps for display. A block moves the figures
-- of every token whose trades leave the day's window or pass the hour's and the day's marks, not
-- only of those it trades: about 125 tokens a block at 1,000,000 tokens. On the tokens table each
-- such update changed an indexed column, so none was HOT, and each wrote a new row version into
-- every one of its thirteen indexes that holds the row. Here the tokens row changes only
-- unindexed columns (a HOT update, in the room the fill factor leaves on its page), and the rank
-- row, about 100 bytes against the token's 787, is written into its own five indexes alone. A list in one of these orders walks a token_ranks index
-- and reads each token by its primary key.
CREATE TABLE token_ranks (
	address      BYTEA            PRIMARY KEY REFERENCES tokens (address) ON DELETE CASCADE,
	launch_block BIGINT           NOT NULL,
	launch_log   BIGINT           NOT NULL,
	trend_log    DOUBLE PRECISION NOT NULL,
	volume_rank  DOUBLE PRECISION NOT NULL,
	change_1h    DOUBLE PRECISION NOT NULL,
	change_24h   DOUBLE PRECISION NOT NULL
);
INSERT INTO token_ranks (address, launch_block, launch_log, trend_log, volume_rank, change_1h, change_24h)
	SELECT address, launch_block, launch_log, trend_log, volume_rank, change_1h, change_24h FROM tokens;
CREATE INDEX token_ranks_trending ON token_ranks (trend_log, launch_block, launch_log, address);
CREATE INDEX token_ranks_volume ON token_ranks (volume_rank, launch_block, launch_log, address);
CREATE INDEX token_ranks_change_1h ON token_ranks (change_1h, launch_block, launch_log, address);
CREATE INDEX token_ranks_change_24h ON token_ranks (change_24h, launch_block, launch_log, address);
DROP INDEX tokens_trending, tokens_volume, tokens_change_1h, tokens_change_24h;
-- A fifth of each page the tokens table writes from now on is left for the HOT versions of its
-- rows. Pages written before keep no room: a row on one moves to a page with room at its first
-- update that finds none, and stays there.
ALTER TABLE tokens SET (fillfactor = 80);
ANALYZE token_ranks;
