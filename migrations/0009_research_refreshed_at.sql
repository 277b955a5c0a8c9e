-- release: v0.8.2
-- Research expires research.ttl_days after a person last wrote it: created it, or edited its title, body,
-- context or source_url. updated_at cannot say that (status changes, delete and restore move it too), so
-- items gain refreshed_at, which only those writes set. See docs/decisions/0019-research-expiry-from-refreshed-at.md.

ALTER TABLE items ADD COLUMN refreshed_at timestamptz;

-- Backfill: when each version was last written (its latest created, superseded or legacy in-place 'updated'
-- history row; else its updated_at, never earlier than that), carried forward along the chain over versions
-- whose title, body, context and source equal their predecessor's (a move to another system).
WITH RECURSIVE written (id, title, body, context, source_url, at) AS (
  SELECT i.id, i.title, i.body, i.context, i.source_url,
         coalesce((SELECT max(h.changed_at) FROM items_history h
                   WHERE h.item_id = i.id AND h.change_kind IN ('created', 'updated', 'superseded')), i.updated_at)
  FROM items i WHERE i.supersedes_id IS NULL
  UNION ALL
  SELECT n.id, n.title, n.body, n.context, n.source_url,
         CASE WHEN n.title = w.title AND n.body = w.body AND n.context = w.context
                   AND n.source_url IS NOT DISTINCT FROM w.source_url THEN w.at
              ELSE coalesce((SELECT max(h.changed_at) FROM items_history h
                             WHERE h.item_id = n.id AND h.change_kind IN ('created', 'updated', 'superseded')), n.updated_at)
         END
  FROM written w JOIN items n ON n.supersedes_id = w.id
)
UPDATE items i SET refreshed_at = w.at FROM written w WHERE w.id = i.id;

-- Rows the walk cannot reach (none in a consistent database) keep their last change.
UPDATE items SET refreshed_at = updated_at WHERE refreshed_at IS NULL;
ALTER TABLE items ALTER COLUMN refreshed_at SET DEFAULT now(), ALTER COLUMN refreshed_at SET NOT NULL;
