-- Every token's trades in a window of time (the discovery windows each Apply reads: the trades
-- that leave the day's volume and pass the hour's and the day's marks as the clock moves) by a
-- btree on block_time, where the BRIN of migration 0023 served them. A BRIN range covers 32 pages,
-- the ranges written since the last summary are read by every scan, and on a store of a few
-- thousand pages the planner preferred a sequential scan of every trade: a live block of 25
-- trades read the whole table twice (2,590 pages, 20 ms a block at 99,000 trades). The trades of
-- a block share its time, so the btree keeps each time once with the list of its rows
-- (deduplication), a few bytes per trade (README's "Scale" gives the bytes per trade).
DROP INDEX trades_time;
CREATE INDEX trades_time ON trades (block_time);
