-- The graduated tokens by graduation time: graduatedSince reads the range it asks for, and
-- phase=graduated the graduated tokens alone, where a walk of a list order would pass over
-- every token on the curve (with few graduates, or none since the time asked, every token).
CREATE INDEX tokens_graduated ON tokens (graduated_at) WHERE graduated = 1;

-- (holders_largest lists a token's holders in page order here already.)
