-- The tokens on their curve that stand at full progress (10,000) and have not graduated: a
-- list of the curve's tokens by progress reads them here, and the rest from tokens_progress below
-- 10,000, where no graduate is (a graduate's progress is 10,000). Without it, that list walked
-- tokens_progress from the top past every graduate. A row is here between the buy that fills
-- the curve and the graduation, if ever: the index is almost always empty, and a write of a token
-- elsewhere adds nothing to it.
CREATE INDEX tokens_curve_full ON tokens (launch_block, launch_log, address) WHERE NOT graduated AND progress >= 10000;
