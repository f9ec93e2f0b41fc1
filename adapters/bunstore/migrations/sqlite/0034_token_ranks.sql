-- PostgreSQL keeps the discovery orders in a table of their own (migration 0034 there), so that
-- the figures a block moves are written as HOT updates of the tokens rows. SQLite has no such
-- versions: an UPDATE rewrites the row in place and only the indexes whose columns changed, so it
-- keeps the orders' indexes on tokens (migration 0034 of its own does nothing).
SELECT 1;
