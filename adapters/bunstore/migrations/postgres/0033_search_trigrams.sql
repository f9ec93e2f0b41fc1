-- SQLite finds a search's matches in an FTS5 trigram index (migration 0033 there); PostgreSQL
-- finds them in the pg_trgm indexes of token_search (migration 0029).
SELECT 1;
