-- Search by name or symbol finds its matches in an FTS5 index of the names' trigrams
-- (token_search_fts), where it read every row of token_search (at 100,000 tokens, a text that
-- matches nothing took 31 ms of the database's time; 0.06 ms from the index). The index is external
-- content: it keeps the trigrams and their places, token_search keeps the text. Its rows are
-- token_search's by id, a column of their own (an INTEGER PRIMARY KEY, which a VACUUM keeps; it may
-- renumber an implicit rowid), so token_search is made again with one, each row keeping its rowid.
--
-- The tokenizer is trigram with case_sensitive 1: the names are lowercased in Go, as a search's
-- text is, so nothing is folded, and a phrase of the text's trigrams then matches where the text is
-- a substring of a name or a symbol: exactly what LIKE '%text%' matches on the lowercased columns
-- (SQLite's LIKE folds ASCII alone, which neither side holds in capitals). A search reads the index
-- with MATCH and its text as one quoted phrase (bunstore's ftsPhrase: inside double quotes FTS5
-- reads no syntax but a doubled double quote), and checks the matches it lists again with that LIKE
-- (a name with 1,000 matches or more is not listed: the list's order is walked, each token's names
-- checked). A phrase of more than one trigram needs the positions that detail=full keeps: with
-- detail=none or column FTS5 refuses it, and an AND of the trigrams instead matches names that hold
-- them apart. detail=full took 5.8 MB at 100,000 tokens (58 B a token), detail=none 1.8 MB, and
-- found a common name's first 1,000 matches in 0.65 ms against 0.96. LIKE and GLOB on the FTS table
-- are not the way: with case_sensitive 1 the index serves GLOB and no LIKE (and whatever the
-- option, no LIKE with an ESCAPE clause), and a wildcard in the user's text breaks a GLOB pattern's
-- runs of literal characters, which are what the index can look up. A text of fewer than 3
-- characters has no trigram and reads token_search as before. columnsize=0: no ranking reads the
-- columns' sizes, so they are not kept.
--
-- Triggers keep the index in step with token_search: a launch's insert, and every delete, those of
-- a rollback (ON DELETE CASCADE from tokens) and of Reset included. An insert that meets a stored
-- address (ON CONFLICT DO NOTHING) inserts nothing and fires nothing. The rows are never updated;
-- the update trigger keeps the index right if one ever is.
CREATE TABLE token_search_ids (
	id           INTEGER PRIMARY KEY,
	address      BLOB NOT NULL UNIQUE REFERENCES tokens (address) ON DELETE CASCADE,
	name_lower   TEXT NOT NULL,
	symbol_lower TEXT NOT NULL
);
INSERT INTO token_search_ids (id, address, name_lower, symbol_lower)
	SELECT rowid, address, name_lower, symbol_lower FROM token_search ORDER BY rowid;
DROP TABLE token_search;
ALTER TABLE token_search_ids RENAME TO token_search;

CREATE VIRTUAL TABLE token_search_fts USING fts5 (
	name_lower, symbol_lower,
	content = 'token_search', content_rowid = 'id',
	tokenize = 'trigram case_sensitive 1', detail = full, columnsize = 0
);
CREATE TRIGGER token_search_fts_insert AFTER INSERT ON token_search BEGIN
	INSERT INTO token_search_fts (rowid, name_lower, symbol_lower) VALUES (new.id, new.name_lower, new.symbol_lower);
END;
CREATE TRIGGER token_search_fts_delete AFTER DELETE ON token_search BEGIN
	INSERT INTO token_search_fts (token_search_fts, rowid, name_lower, symbol_lower) VALUES ('delete', old.id, old.name_lower, old.symbol_lower);
END;
CREATE TRIGGER token_search_fts_update AFTER UPDATE ON token_search BEGIN
	INSERT INTO token_search_fts (token_search_fts, rowid, name_lower, symbol_lower) VALUES ('delete', old.id, old.name_lower, old.symbol_lower);
	INSERT INTO token_search_fts (rowid, name_lower, symbol_lower) VALUES (new.id, new.name_lower, new.symbol_lower);
END;
INSERT INTO token_search_fts (token_search_fts) VALUES ('rebuild');
