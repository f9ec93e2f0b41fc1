-- Search by name or symbol: PostgreSQL indexes it with trigrams (pg_trgm); SQLite, which has no
-- such index, reads the lowercased names and symbols of the tokens, which is what it did before.
SELECT 1;
