-- The prices the 1h and 24h changes compare, kept with the figures (discovery.go): the last
-- trade's price, and the price of the last trade at least an hour (a day) before the discovery
-- clock; NULL without such a trade (the change then compares with the opening price). A batch
-- moves them from its own trades and from the trades it reads as they pass the hour's and the
-- day's mark, so it probes no trades index for them. Minimal big-endian bytes, as trades.price.
ALTER TABLE tokens ADD COLUMN last_price BLOB;
ALTER TABLE tokens ADD COLUMN price_1h BLOB;
ALTER TABLE tokens ADD COLUMN price_24h BLOB;

-- bunstore computes them once, on open, for every token with a trade.
UPDATE discovery SET rebuild = 1 WHERE trend_at <> 0;
