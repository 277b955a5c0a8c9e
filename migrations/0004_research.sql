-- release: v0.5.3
-- The research item type: a cached external reference. It must name its source; it expires after the
-- project's research.ttl_days (default 90), which the service reads from projects.settings.

INSERT INTO item_types (key, display_name, schema, owner) VALUES
  ('research', 'Research', '{"type":"object"}', 'system');

ALTER TABLE items ADD COLUMN source_url text CHECK (source_url IS NULL OR length(source_url) BETWEEN 1 AND 2048);
ALTER TABLE items ADD CONSTRAINT items_research_has_source
  CHECK (item_type <> 'research' OR (source_url IS NOT NULL AND btrim(source_url) <> ''));
