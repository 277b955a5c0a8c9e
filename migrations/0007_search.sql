-- release: v0.8.0
-- Search at scale: a project-scoped combined index (btree_gin: project_id + the weighted tsvector) over
-- current, undeleted items, so a search touches only its own project's rows; and an index for recent heads
-- (brief). See docs/decisions/0005-search-candidates.md.

CREATE EXTENSION IF NOT EXISTS btree_gin;

CREATE INDEX items_project_search ON items USING gin (project_id, search) WHERE is_head AND deleted_at IS NULL;
DROP INDEX items_search;

CREATE INDEX glossary_terms_group ON glossary_terms (group_id, status);
CREATE INDEX glossary_rejections_group ON glossary_rejections (group_id, normalized);
CREATE INDEX work_units_project_open ON work_units (project_id, updated_at DESC) WHERE status = 'open';
