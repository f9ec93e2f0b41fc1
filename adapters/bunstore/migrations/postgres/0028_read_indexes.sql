-- The graduated tokens by graduation time: graduatedSince reads the range it asks for, and
-- phase=graduated the graduated tokens alone, where a walk of a list order would pass over
-- every token on the curve (with few graduates, or none since the time asked, every token).
CREATE INDEX tokens_graduated ON tokens (graduated_at) WHERE graduated;
-- And in launch order, the list's default: a page of graduates reads its rows alone, where the
-- index above would fetch every graduate to sort them (630 rows from disk, 82 ms, for 51).
CREATE INDEX tokens_graduated_newest ON tokens (launch_block, launch_log, address) WHERE graduated;

-- A token's holders in the order a page lists them (balance descending, then holder): with the
-- holder in the index a page is a range of it, where without it every holder of the balance
-- range was read and sorted (the busiest token's 53,284 holders for each page, 290 ms).
DROP INDEX holders_largest;
CREATE INDEX holders_largest ON holders (token_key(token), balance DESC, holder) WHERE balance > 0;

-- A per-token read names both the token's key and the token (trades.go), and the planner took the
-- two for independent, estimated a busy token's 53,284 holders at 292 and read them all through
-- a bitmap to sort them (181 ms) rather than the first page from the index (1 ms). The key
-- follows from the token: these statistics tell it so (they fill at the next ANALYZE).
CREATE STATISTICS holders_token_key (dependencies) ON (token_key(token)), token FROM holders;
CREATE STATISTICS trades_token_key (dependencies) ON (token_key(token)), token FROM trades;
