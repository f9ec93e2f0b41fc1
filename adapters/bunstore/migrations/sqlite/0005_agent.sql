-- Agent jobs, driven by compare-and-set UPDATEs (see agent.JobStore). Times are Unix
-- milliseconds; history, rich data and status updates are JSON arrays.
CREATE TABLE agent_jobs (
	id               TEXT    PRIMARY KEY,
	thread_id        TEXT    NOT NULL,
	wallet           BLOB    NOT NULL,
	status           TEXT    NOT NULL,
	prompt           TEXT    NOT NULL,
	history          TEXT    NOT NULL,
	model            TEXT    NOT NULL,
	created_at       BIGINT  NOT NULL,
	started_at       BIGINT,
	completed_at     BIGINT,
	cancelled_at     BIGINT,
	response         TEXT    NOT NULL,
	rich_data        TEXT    NOT NULL,
	error            TEXT    NOT NULL,
	status_updates   TEXT    NOT NULL,
	attempts         INTEGER NOT NULL,
	locked_by        TEXT,
	lease_expires_at BIGINT
);

-- The claim takes the oldest pending job; the cap counts a wallet's pending jobs; the rescuer
-- looks for expired leases.
CREATE INDEX agent_jobs_claim ON agent_jobs (status, created_at, id);
CREATE INDEX agent_jobs_wallet ON agent_jobs (wallet, status);
CREATE INDEX agent_jobs_lease ON agent_jobs (lease_expires_at) WHERE status = 'processing';

CREATE TABLE agent_memory (
	wallet     BLOB   NOT NULL,
	key        TEXT   NOT NULL,
	value      TEXT   NOT NULL,
	updated_at BIGINT NOT NULL,
	PRIMARY KEY (wallet, key)
);

CREATE TABLE agent_threads (
	id         TEXT   PRIMARY KEY,
	wallet     BLOB   NOT NULL,
	created_at BIGINT NOT NULL
);

CREATE TABLE agent_turns (
	thread_id TEXT    NOT NULL REFERENCES agent_threads (id) ON DELETE CASCADE,
	seq       INTEGER NOT NULL,
	prompt    TEXT    NOT NULL,
	response  TEXT    NOT NULL,
	at        BIGINT  NOT NULL,
	PRIMARY KEY (thread_id, seq)
);
