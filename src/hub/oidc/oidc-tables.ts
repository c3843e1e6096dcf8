// The tables of sign-in through the team's identity provider, the same on hub.db and on
// PostgreSQL (both take BIGINT and TEXT). This text is a migration on both stores: never edit
// it; change the schema with a new migration at the end of each list.
export const OIDC_TABLES = `CREATE TABLE oidc_identities (
     issuer TEXT NOT NULL,
     subject TEXT NOT NULL,
     operator TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     PRIMARY KEY (issuer, subject)
   );
   -- A sign-in under way (keyed by its state's hash) or a finished one waiting for its
   -- desktop (keyed by the hand-over code's hash); sealed with the state or the code, which
   -- only the browser carries. Taken once.
   CREATE TABLE oidc_pending (
     key TEXT NOT NULL PRIMARY KEY,
     sealed TEXT NOT NULL,
     expires_at BIGINT NOT NULL
   );
   -- A session: the hashes of its access token and of its refresh token, and the provider's
   -- tokens sealed with the refresh token (which only the desktop holds). operator_key is the
   -- operator row's token_hash: a revoked and re-created operator's old sessions match nothing.
   CREATE TABLE oidc_sessions (
     id TEXT NOT NULL PRIMARY KEY,
     operator_key TEXT NOT NULL,
     access_hash TEXT NOT NULL UNIQUE,
     access_expires_at BIGINT NOT NULL,
     refresh_hash TEXT NOT NULL UNIQUE,
     sealed TEXT NOT NULL,
     created_at BIGINT NOT NULL,
     ended_at BIGINT
   );
   CREATE INDEX oidc_sessions_operator ON oidc_sessions (operator_key);`

// The refresh token a session held before its last renewal, for a short while (oidc-service.ts,
// RENEWAL_GRACE_MS): its hash, the session's current tokens sealed with it, and until when it is
// taken. A desktop that never got a renewal's answer (or could not keep it) asks again with the
// token it still holds and gets the same session, once (previous_sealed is cleared as it is
// handed out, and forgotten after the grace); the same token again is refused and ends the
// session. Kept in the database, so a hub answers a renewal another hub made.
export const OIDC_PREVIOUS_REFRESH = `ALTER TABLE oidc_sessions ADD COLUMN previous_refresh_hash TEXT;
   ALTER TABLE oidc_sessions ADD COLUMN previous_sealed TEXT;
   ALTER TABLE oidc_sessions ADD COLUMN previous_until BIGINT;
   CREATE INDEX oidc_sessions_previous ON oidc_sessions (previous_refresh_hash);`

// A renewal under way and every refresh token renewals replaced (oidc-service.ts). The hub that
// asks the provider first claims the session until renewing_until: a second renewal with the
// same refresh token (on this hub or another) waits for that answer instead of spending the
// provider's refresh token again, which a rotating provider takes once and then refuses, ending
// the session. A replaced token, however old, is known as one: presented again past its grace it
// ends the session (a copy in other hands). Rows go with their session (PRUNE_SESSIONS).
export const OIDC_RENEWALS = `ALTER TABLE oidc_sessions ADD COLUMN renewing_until BIGINT;
   CREATE TABLE oidc_replaced_refresh (
     refresh_hash TEXT NOT NULL PRIMARY KEY,
     session_id TEXT NOT NULL,
     replaced_at BIGINT NOT NULL
   );
   CREATE INDEX oidc_replaced_refresh_session ON oidc_replaced_refresh (session_id);`
