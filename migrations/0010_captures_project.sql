-- release: v0.8.3
-- A capture may be filed under a project (SPEC.md calls the store per project): svc_capture_add takes an
-- optional project_id; null is the shared inbox, as before. The capture tools filter by it, and a project's
-- export carries the captures filed under it. See docs/decisions/0025-captures-filed-under-a-project.md.

ALTER TABLE captures ADD COLUMN project_id uuid REFERENCES projects (id) ON DELETE CASCADE;

-- svc_capture_list / _search with project_id: the project's captures, newest first; export by project.
CREATE INDEX captures_project_created ON captures (project_id, created_at DESC) WHERE project_id IS NOT NULL;
