-- release: v0.7.0
-- v0.7.0 removed built-in authentication. svc never had it, so there is nothing to drop: no credential
-- columns, no sessions, no tokens. Attribution comes from the X-Actor header or SVC_DEFAULT_ACTOR_ID.
-- This migration records the release, so the schema version matches the service's history.
COMMENT ON TABLE actors IS 'Attribution metadata only (v0.7.0): no credential fields exist.';
