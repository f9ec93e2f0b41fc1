-- candle_levels keeps each token's five-minute bars beside its hours and days: a window of 5 or
-- 15 minutes (the default resolution is 5 minutes, 1,000 bars) rolls up from them instead of from
-- five times as many minutes (5,000 minute rows a default window of a busy token). The store
-- computes them for the tokens already stored from their minutes when it opens, as it computed
-- their hours and days (migration 0027): each is listed here again and done once.
INSERT INTO candle_levels_pending (token)
	SELECT address FROM tokens WHERE EXISTS (SELECT 1 FROM candle_bars WHERE candle_bars.token = tokens.address)
	ON CONFLICT (token) DO NOTHING;
