-- The indexer's lease among replicas: its holder, a term that grows with every new holder (the
-- fencing token every indexer write checks), and its expiry, in milliseconds of the database's
-- clock.

CREATE TABLE leases (
    name       TEXT PRIMARY KEY,
    holder     TEXT NOT NULL,
    term       BIGINT NOT NULL,
    since_ms   BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL
);
