-- The trades' times: SQLite has kept them in a btree (trades_time) since migration 0023, which
-- PostgreSQL now does too.
SELECT 1;
