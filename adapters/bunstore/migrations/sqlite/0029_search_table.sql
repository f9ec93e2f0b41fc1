-- Search by name or symbol reads a table of its own: the lowercased name and symbol of each
-- token, written once at its launch. SQLite, which has no trigram index, reads it whole, a
-- narrower read than the tokens table. A rollback that removes a token removes its row (ON
-- DELETE CASCADE).
CREATE TABLE token_search (
	address      BLOB NOT NULL PRIMARY KEY REFERENCES tokens (address) ON DELETE CASCADE,
	name_lower   TEXT NOT NULL,
	symbol_lower TEXT NOT NULL
);
INSERT INTO token_search (address, name_lower, symbol_lower) SELECT address, name_lower, symbol_lower FROM tokens;
