-- PostgreSQL lists the curve's tokens at full progress from an index of their own (a few at
-- most); SQLite reads the curve's tokens by progress as before.
SELECT 1;
