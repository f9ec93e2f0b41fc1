-- Threads belong to accounts: a thread is keyed by its wallet and its id, so the same id in two
-- wallets is two threads, and no wallet's choice of an id affects another's. A turn carries its
-- thread's wallet. SQLite cannot change a primary key in place: the tables are rebuilt, their
-- rows kept (the old tables are renamed first, which points the old turns' foreign key at the
-- old threads, and dropped once copied).

ALTER TABLE agent_turns RENAME TO agent_turns_0005;
ALTER TABLE agent_threads RENAME TO agent_threads_0005;

CREATE TABLE agent_threads (
	wallet     BLOB   NOT NULL,
	id         TEXT   NOT NULL,
	created_at BIGINT NOT NULL,
	PRIMARY KEY (wallet, id)
);

CREATE TABLE agent_turns (
	wallet    BLOB    NOT NULL,
	thread_id TEXT    NOT NULL,
	seq       INTEGER NOT NULL,
	prompt    TEXT    NOT NULL,
	response  TEXT    NOT NULL,
	at        BIGINT  NOT NULL,
	PRIMARY KEY (wallet, thread_id, seq),
	FOREIGN KEY (wallet, thread_id) REFERENCES agent_threads (wallet, id) ON DELETE CASCADE
);

INSERT INTO agent_threads (wallet, id, created_at) SELECT wallet, id, created_at FROM agent_threads_0005;
INSERT INTO agent_turns (wallet, thread_id, seq, prompt, response, at)
	SELECT th.wallet, t.thread_id, t.seq, t.prompt, t.response, t.at
	FROM agent_turns_0005 t JOIN agent_threads_0005 th ON th.id = t.thread_id;

DROP TABLE agent_turns_0005;
DROP TABLE agent_threads_0005;
