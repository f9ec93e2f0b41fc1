-- The graduated tokens by graduation time: graduatedSince reads the range it asks for, and
-- phase=graduated the graduated tokens alone, where a walk of a list order would pass over
-- every token on the curve (with few graduates, or none since the time asked, every token).
CREATE INDEX tokens_graduated ON tokens (graduated_at) WHERE graduated = 1;
-- And in launch order, the list's default: a page of graduates reads its rows alone, where the
-- index above would fetch every graduate to sort them (630 rows from disk, 82 ms, for 51).
CREATE INDEX tokens_graduated_newest ON tokens (launch_block, launch_log, address) WHERE graduated = 1;

-- (holders_largest lists a token's holders in page order here already.)
