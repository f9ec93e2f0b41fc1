-- The losers' order (change_24h ascending, then the newest launch first) in one index: SQLite
-- walked tokens_change_24h and sorted each run of equal changes by launch, and most tokens share
-- a change of 0 (2.6 s a page at 100,000 tokens). PostgreSQL reads the same order from
-- tokens_change_24h without sorting the whole run (migration 0032 of its own does nothing).
CREATE INDEX tokens_losers ON tokens (change_24h, launch_block DESC, launch_log DESC, address DESC);
