-- Each token's name and symbol as a reader compares them (market.FoldName), and how many tokens
-- have each folded name and each folded symbol (token_names: kind 0 a name, 1 a symbol), kept by
-- every Apply (a launch counts once) and Rollback (a removed launch counts no more), so that the
-- namesakes of a page of tokens are one primary-key lookup per fold when a read asks for them
-- (Market.CountNames), however many tokens share a symbol, and nothing reads every token's name.
-- The folds are NULL until computed: bunstore computes them in Go, once, on open, for the tokens
-- stored before this migration (discovery.fold_names) and counts them; at launch for every other.
ALTER TABLE tokens ADD COLUMN name_fold TEXT;
ALTER TABLE tokens ADD COLUMN symbol_fold TEXT;
CREATE TABLE token_names (
	kind INTEGER NOT NULL,
	fold TEXT    NOT NULL,
	n    INTEGER NOT NULL,
	PRIMARY KEY (kind, fold)
);

ALTER TABLE discovery ADD COLUMN fold_names INTEGER NOT NULL DEFAULT 0;
UPDATE discovery SET fold_names = 1 WHERE EXISTS (SELECT 1 FROM tokens);
