-- release: v0.8.1
-- Rule pack at scale (svc_check over 100k items): small partial indexes for the rows the rules look for, so
-- a rule reads the few suspicious rows instead of the whole project. See docs/benchmarks.md.

-- dangling-link, dependency-cycle: chains whose current version is deleted.
CREATE INDEX items_project_deleted_heads ON items (project_id) WHERE is_head AND deleted_at IS NOT NULL;
-- chain-integrity: earlier versions (a chain without a head ends in one of them).
CREATE INDEX items_project_old_versions ON items (project_id) WHERE NOT is_head;
-- empty-decision.
CREATE INDEX items_project_empty_decisions ON items (project_id, updated_at DESC)
  WHERE item_type = 'decision' AND is_head AND deleted_at IS NULL AND btrim(body) = '';
