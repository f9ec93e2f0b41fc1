-- Search by name or symbol reads a table of its own: the lowercased name and symbol of each
-- token, written once at its launch and never updated. On tokens, whose row a batch rewrites for
-- every token it trades, the trigram indexes took a copy of every trigram of the name and
-- symbol at each rewrite, and their pending list (GIN's fast update) grew until a search read
-- it whole: 17 ms to find nothing among 450,000 tokens. Launches write these indexes directly
-- (fastupdate off): a few a block, where a pending list would again be read by every search. A
-- rollback that removes a token removes its row (ON DELETE CASCADE).
CREATE TABLE token_search (
	address      BYTEA NOT NULL PRIMARY KEY REFERENCES tokens (address) ON DELETE CASCADE,
	name_lower   TEXT  NOT NULL,
	symbol_lower TEXT  NOT NULL
);
INSERT INTO token_search (address, name_lower, symbol_lower) SELECT address, name_lower, symbol_lower FROM tokens;

DROP INDEX IF EXISTS tokens_name_trgm;
DROP INDEX IF EXISTS tokens_symbol_trgm;
DO $$
DECLARE
	ns TEXT;
BEGIN
	SELECT extnamespace::regnamespace::text INTO ns FROM pg_extension WHERE extname = 'pg_trgm';
	IF ns IS NOT NULL THEN
		EXECUTE format('CREATE INDEX token_search_name ON token_search USING gin (name_lower %s.gin_trgm_ops) WITH (fastupdate = off)', ns);
		EXECUTE format('CREATE INDEX token_search_symbol ON token_search USING gin (symbol_lower %s.gin_trgm_ops) WITH (fastupdate = off)', ns);
	END IF;
END $$;
ANALYZE token_search;
