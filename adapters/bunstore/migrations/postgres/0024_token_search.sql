-- Search by name or symbol (GET /tokens?q=): trigram indexes from pg_trgm (PostgreSQL's contrib)
-- serve the "contains" match the token list asks (LIKE '%q%' on the lowercased name and
-- symbol), where PostgreSQL would otherwise read every token. The extension is created where the
-- store may create it (PostgreSQL 13 and later trust any user who may create in the database);
-- where it may not, nor is there, search reads the table as before.
DO $$
BEGIN
	CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;
EXCEPTION WHEN insufficient_privilege OR unique_violation OR duplicate_object OR undefined_file OR invalid_schema_name THEN
	NULL; -- another migration created it meanwhile, or it cannot be
END $$;

DO $$
DECLARE
	ns TEXT;
BEGIN
	SELECT extnamespace::regnamespace::text INTO ns FROM pg_extension WHERE extname = 'pg_trgm';
	IF ns IS NOT NULL THEN
		EXECUTE format('CREATE INDEX tokens_name_trgm ON tokens USING gin (name_lower %s.gin_trgm_ops)', ns);
		EXECUTE format('CREATE INDEX tokens_symbol_trgm ON tokens USING gin (symbol_lower %s.gin_trgm_ops)', ns);
	END IF;
END $$;
