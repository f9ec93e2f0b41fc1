-- Each token's name and symbol as a reader compares them (market.FoldName), indexed, so that the
-- namesakes of a token are counted by an index lookup when a read asks for them
-- (Market.CountNames), and nothing reads every token's name. NULL until computed: bunstore
-- computes them in Go, once, on open, for the tokens stored before this migration
-- (discovery.fold_names), and at launch for every other.
ALTER TABLE tokens ADD COLUMN name_fold TEXT;
ALTER TABLE tokens ADD COLUMN symbol_fold TEXT;
CREATE INDEX tokens_name_fold ON tokens (name_fold);
CREATE INDEX tokens_symbol_fold ON tokens (symbol_fold);

ALTER TABLE discovery ADD COLUMN fold_names INTEGER NOT NULL DEFAULT 0;
UPDATE discovery SET fold_names = 1 WHERE EXISTS (SELECT 1 FROM tokens);
