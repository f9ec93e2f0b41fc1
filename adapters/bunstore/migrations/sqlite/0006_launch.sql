-- Launch reads by creator: the daily launch count (tokens of a creator since a time) and the
-- creator fees (a creator's tokens, then their trades and claims through the token indexes).

CREATE INDEX tokens_creator ON tokens (creator, created_at);
