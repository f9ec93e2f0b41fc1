-- Accounts: users signed in through an identity provider, their sessions and API keys, and the
-- sign-ins under way. Secrets (session tokens, API keys, sign-in states and their browser
-- bindings) are kept only as SHA-256 digests; times are Unix nanoseconds, NULL when not yet.
CREATE TABLE accounts (
	id         TEXT    PRIMARY KEY,
	provider   TEXT    NOT NULL,
	subject    TEXT    NOT NULL,
	wallet     BYTEA   UNIQUE,
	handle     TEXT    NOT NULL,
	name       TEXT    NOT NULL,
	picture    TEXT    NOT NULL,
	tier       TEXT    NOT NULL DEFAULT 'free',
	created_at BIGINT  NOT NULL,
	updated_at BIGINT  NOT NULL,
	UNIQUE (provider, subject)
);

CREATE TABLE sessions (
	id           TEXT    PRIMARY KEY,
	token_hash   BYTEA   NOT NULL UNIQUE,
	account_id   TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	signed_in_at BIGINT  NOT NULL,
	expires_at   BIGINT  NOT NULL,
	ended_at     BIGINT
);

CREATE INDEX sessions_account ON sessions (account_id);
CREATE INDEX sessions_expires ON sessions (expires_at);

-- allowed_ips and allowed_recipients are JSON arrays of strings.
CREATE TABLE api_keys (
	id                 TEXT    PRIMARY KEY,
	key_hash           BYTEA   NOT NULL UNIQUE,
	account_id         TEXT    NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
	name               TEXT    NOT NULL,
	hint               TEXT    NOT NULL,
	read_only          BOOLEAN NOT NULL,
	allowed_ips        TEXT    NOT NULL,
	allowed_recipients TEXT    NOT NULL,
	created_at         BIGINT  NOT NULL,
	last_used_at       BIGINT,
	revoked_at         BIGINT
);

CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

-- Sign-ins between GET /auth/login and the provider's callback; each row is taken once. The PKCE
-- verifier is kept as is (the provider wants it back), for the sign-in's ten minutes at most: it is
-- worthless without the authorization code, which never reaches the database.
CREATE TABLE login_states (
	state_hash   BYTEA   PRIMARY KEY,
	binding_hash BYTEA   NOT NULL,
	verifier     TEXT    NOT NULL,
	return_to    TEXT    NOT NULL,
	created_at   BIGINT  NOT NULL,
	expires_at   BIGINT  NOT NULL
);

CREATE INDEX login_states_expires ON login_states (expires_at);
