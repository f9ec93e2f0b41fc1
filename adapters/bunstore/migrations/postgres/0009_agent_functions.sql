-- The agent's three busiest writes as functions, so that each is one prepared statement: parsed
-- and planned once per connection, where the same statements sent as text were parsed and
-- planned at every run. Each statement of a function takes its own snapshot (READ COMMITTED),
-- so what a function reads after taking a lock includes everything committed before the lock
-- was granted.

-- A pending job, unless the wallet already has cap pending ones (counted under the wallet's
-- lock) or the id exists: whether it was inserted.
CREATE FUNCTION curvekit_agent_insert_job(lock_key BIGINT, cap BIGINT, p_id TEXT, p_thread_id TEXT,
	p_wallet BYTEA, p_read_only BOOLEAN, p_prompt TEXT, p_history TEXT, p_model TEXT, p_created_at BIGINT)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(lock_key);
	IF (SELECT count(*) FROM agent_jobs WHERE wallet = p_wallet AND status = 'pending') >= cap THEN
		RETURN false;
	END IF;
	INSERT INTO agent_jobs (id, thread_id, wallet, read_only, status, prompt, history, model, created_at,
		response, rich_data, error, status_updates, attempts)
	VALUES (p_id, p_thread_id, p_wallet, p_read_only, 'pending', p_prompt, p_history, p_model, p_created_at,
		'', '[]', '', '[]', 0)
	ON CONFLICT (id) DO NOTHING;
	RETURN FOUND;
END
$$;

-- A memory entry created or replaced, unless it is new and the wallet already holds cap
-- entries (counted under the wallet's lock): whether it was written.
CREATE FUNCTION curvekit_agent_put_memory(lock_key BIGINT, cap BIGINT, p_wallet BYTEA, p_key TEXT,
	p_value TEXT, p_at BIGINT)
RETURNS BOOLEAN LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_advisory_xact_lock(lock_key);
	IF NOT EXISTS (SELECT 1 FROM agent_memory WHERE wallet = p_wallet AND key = p_key)
		AND (SELECT count(*) FROM agent_memory WHERE wallet = p_wallet) >= cap THEN
		RETURN false;
	END IF;
	INSERT INTO agent_memory (wallet, key, value, updated_at) VALUES (p_wallet, p_key, p_value, p_at)
	ON CONFLICT (wallet, key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at;
	RETURN true;
END
$$;

-- A held job completed with its answer and its turn appended to its thread: the job's new row,
-- or no row when its lease no longer holds or its thread is another wallet's (then nothing is
-- written but perhaps the empty thread of a job whose lease was lost meanwhile, its wallet's,
-- as the job's next run would create it). The thread is created if new and its row locked
-- either way (ON CONFLICT DO UPDATE locks the row it finds even when its WHERE updates
-- nothing), which orders the appends of one thread; the turn is numbered under that lock.
-- p_notes is a JSON array of progress notes to append, or NULL.
CREATE FUNCTION curvekit_agent_complete_job(p_id TEXT, p_runner TEXT, p_attempt INTEGER,
	p_response TEXT, p_rich_data TEXT, p_completed_at BIGINT, p_notes TEXT,
	p_prompt TEXT, p_turn_response TEXT, p_turn_at BIGINT)
RETURNS SETOF agent_jobs LANGUAGE plpgsql AS $$
DECLARE
	j agent_jobs;
BEGIN
	INSERT INTO agent_threads (id, wallet, created_at)
		SELECT thread_id, wallet, p_turn_at FROM agent_jobs
		WHERE id = p_id AND status = 'processing' AND locked_by = p_runner AND attempts = p_attempt
	ON CONFLICT (id) DO UPDATE SET wallet = agent_threads.wallet WHERE false;
	UPDATE agent_jobs SET status = 'completed', response = p_response, rich_data = p_rich_data,
		completed_at = p_completed_at,
		status_updates = CASE WHEN p_notes IS NULL THEN status_updates
			ELSE (status_updates::jsonb || p_notes::jsonb)::text END,
		locked_by = NULL, lease_expires_at = NULL
	WHERE id = p_id AND status = 'processing' AND locked_by = p_runner AND attempts = p_attempt
		AND EXISTS (SELECT 1 FROM agent_threads t WHERE t.id = agent_jobs.thread_id AND t.wallet = agent_jobs.wallet)
	RETURNING * INTO j;
	IF NOT FOUND THEN
		RETURN;
	END IF;
	INSERT INTO agent_turns (thread_id, seq, prompt, response, at)
		SELECT j.thread_id, COALESCE(MAX(seq), 0) + 1, p_prompt, p_turn_response, p_turn_at
		FROM agent_turns WHERE thread_id = j.thread_id;
	RETURN NEXT j;
END
$$;
