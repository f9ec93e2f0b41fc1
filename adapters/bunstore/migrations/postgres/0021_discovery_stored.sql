-- Discovery kept so that time passing rewrites nothing (see discovery.go): a batch writes only the
-- tokens whose trades it adds or whose trades leave a window.
--
-- trend_log is log2 of the trending sum against a fixed epoch (market.TrendLog): trades move it,
-- time does not, and it orders the trending list as the decayed score would. volume_24h is the
-- exact pairing-asset volume of the trades in the day up to discovery.trend_at (decimal), with
-- buys_24h and sells_24h; volume_rank is the same as a float, for the volume24h order. The trend
-- sums that the whole table decayed every batch are gone.
DROP INDEX tokens_trending;
ALTER TABLE tokens DROP COLUMN trend_hour;
ALTER TABLE tokens DROP COLUMN trend_day;
ALTER TABLE tokens DROP COLUMN trend_score;
ALTER TABLE tokens ADD COLUMN trend_log DOUBLE PRECISION NOT NULL DEFAULT -1e300;
ALTER TABLE tokens ADD COLUMN volume_24h TEXT NOT NULL DEFAULT '0';
ALTER TABLE tokens ADD COLUMN volume_rank DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN buys_24h INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tokens ADD COLUMN sells_24h INTEGER NOT NULL DEFAULT 0;
CREATE INDEX tokens_trending ON tokens (trend_log, launch_block, launch_log, address);
CREATE INDEX tokens_volume ON tokens (volume_rank, launch_block, launch_log, address);
-- The king of each pairing asset: its curve token with the highest market cap.
CREATE INDEX tokens_king ON tokens (quote_address, market_cap, launch_block, launch_log, address) WHERE NOT graduated;

-- A batch updates the few tokens it touches; room on each page lets an update that changes no
-- indexed column (the holder count, the exact volume) stay on its page (a HOT update), and
-- autovacuum reclaims the rest at 2% of the table rather than 20%.
ALTER TABLE tokens SET (fillfactor = 80, autovacuum_vacuum_scale_factor = 0.02, autovacuum_analyze_scale_factor = 0.02);

-- 1 while the figures above have to be computed from the trades stored before this migration
-- (bunstore does it once, on open).
ALTER TABLE discovery ADD COLUMN rebuild INTEGER NOT NULL DEFAULT 0;
UPDATE discovery SET rebuild = 1 WHERE trend_at <> 0;
