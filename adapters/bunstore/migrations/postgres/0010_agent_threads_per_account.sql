-- Threads belong to accounts: a thread is keyed by its wallet and its id, so the same id in two
-- wallets is two threads, and no wallet's choice of an id affects another's. A turn carries its
-- thread's wallet, taken from its thread for the turns already kept.

ALTER TABLE agent_turns DROP CONSTRAINT agent_turns_thread_id_fkey;
ALTER TABLE agent_turns ADD COLUMN wallet BYTEA;
UPDATE agent_turns t SET wallet = th.wallet FROM agent_threads th WHERE th.id = t.thread_id;
ALTER TABLE agent_turns ALTER COLUMN wallet SET NOT NULL;
ALTER TABLE agent_turns DROP CONSTRAINT agent_turns_pkey;
ALTER TABLE agent_turns ADD PRIMARY KEY (wallet, thread_id, seq);

ALTER TABLE agent_threads DROP CONSTRAINT agent_threads_pkey;
ALTER TABLE agent_threads ADD PRIMARY KEY (wallet, id);
ALTER TABLE agent_turns ADD FOREIGN KEY (wallet, thread_id) REFERENCES agent_threads (wallet, id) ON DELETE CASCADE;

-- A held job completed with its answer and its turn appended to its thread, the job's wallet's
-- thread of that id: the job's new row, or no row when its lease no longer holds (then nothing
-- is written). The thread is created if new and its row locked either way (ON CONFLICT DO
-- UPDATE locks the row it finds even when its WHERE updates nothing), which orders the appends
-- of one thread; the turn is numbered under that lock. p_notes is a JSON array of progress
-- notes to append, or NULL.
CREATE OR REPLACE FUNCTION curvekit_agent_complete_job(p_id TEXT, p_runner TEXT, p_attempt INTEGER,
	p_response TEXT, p_rich_data TEXT, p_completed_at BIGINT, p_notes TEXT,
	p_prompt TEXT, p_turn_response TEXT, p_turn_at BIGINT)
RETURNS SETOF agent_jobs LANGUAGE plpgsql AS $$
DECLARE
	j agent_jobs;
BEGIN
	UPDATE agent_jobs SET status = 'completed', response = p_response, rich_data = p_rich_data,
		completed_at = p_completed_at,
		status_updates = CASE WHEN p_notes IS NULL THEN status_updates
			ELSE (status_updates::jsonb || p_notes::jsonb)::text END,
		locked_by = NULL, lease_expires_at = NULL
	WHERE id = p_id AND status = 'processing' AND locked_by = p_runner AND attempts = p_attempt
	RETURNING * INTO j;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	INSERT INTO agent_threads (wallet, id, created_at) VALUES (j.wallet, j.thread_id, p_turn_at)
	ON CONFLICT (wallet, id) DO UPDATE SET created_at = agent_threads.created_at WHERE false;
	INSERT INTO agent_turns (wallet, thread_id, seq, prompt, response, at)
		SELECT j.wallet, j.thread_id, COALESCE(MAX(seq), 0) + 1, p_prompt, p_turn_response, p_turn_at
		FROM agent_turns WHERE wallet = j.wallet AND thread_id = j.thread_id;
	RETURN NEXT j;
END
$$;
