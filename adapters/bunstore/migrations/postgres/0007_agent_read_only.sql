-- A job keeps whether a read-only API key submitted it: its turn may read and compose, but not
-- change the wallet's memory.

ALTER TABLE agent_jobs ADD COLUMN read_only BOOLEAN NOT NULL DEFAULT FALSE;
