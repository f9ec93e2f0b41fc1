-- SQLite reads the losers' order from an index of its own (migration 0032 there); PostgreSQL
-- reads it from tokens_change_24h.
SELECT 1;
