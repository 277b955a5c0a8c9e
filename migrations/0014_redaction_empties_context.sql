-- release: v0.9.3
-- Redaction removes a promoted item's context keys and numbers, not only its strings (docs/decisions/0042).
-- Items redacted before this release kept their context's keys, numbers, booleans and nulls; every version of a
-- chain promoted from a redacted capture that was written up to the redaction now gets what redaction gives
-- today (packages/domain redactContext, which this mirrors once for the rows already written): a task keeps
-- sort_order, a QA check its coverage and targets, their free-text fields ([redacted]) keep only their names;
-- any other context becomes {}. A version written after the redaction (refreshed_at: when its text was written)
-- is someone's new text and stays as it is.
-- Title and body are [redacted] already; setting them again is a no-op for those rows and completes any row an
-- earlier rule missed. source_url is cut to its origin again (an http(s) URL's scheme and host, lower-cased; a
-- URL of another scheme, which no version can be written with since 0041, becomes [redacted]).
WITH chains AS (
  SELECT i.chain_id, max(coalesce(c.redacted_at, 'infinity'::timestamptz)) AS redacted_at
  FROM captures AS c
  JOIN capture_promotions AS cp ON cp.capture_id = c.id
  JOIN items AS i ON i.id = cp.item_id
  WHERE c.review_state = 'redacted'
  GROUP BY i.chain_id
),
redacted AS (
  SELECT i.id, i.project_id,
    CASE i.item_type
      WHEN 'task' THEN jsonb_strip_nulls(jsonb_build_object(
        'sort_order', i.context -> 'sort_order',
        'summary', CASE WHEN i.context ? 'summary' THEN to_jsonb('[redacted]'::text) END,
        'blocked_reason', CASE WHEN i.context ? 'blocked_reason' THEN to_jsonb('[redacted]'::text) END))
      WHEN 'qa_check' THEN jsonb_strip_nulls(jsonb_build_object(
        'coverage', i.context -> 'coverage',
        'target_task_ids', i.context -> 'target_task_ids',
        'target_item_ids', i.context -> 'target_item_ids',
        'note', CASE WHEN i.context ? 'note' THEN to_jsonb('[redacted]'::text) END))
      ELSE '{}'::jsonb
    END AS context,
    CASE
      WHEN i.source_url IS NULL THEN NULL
      WHEN i.source_url ~* '^https?://' THEN lower(regexp_replace(i.source_url, '^(https?://)(?:[^/?#]*@)?([^/?#]*).*$', '\1\2/', 'i'))
      ELSE '[redacted]'
    END AS source_url
  FROM items AS i JOIN chains AS ch USING (chain_id)
  WHERE i.refreshed_at <= ch.redacted_at
)
UPDATE items AS i
SET title = '[redacted]', body = '[redacted]', context = r.context, source_url = r.source_url
FROM redacted AS r
WHERE i.id = r.id
  AND (i.title <> '[redacted]' OR i.body <> '[redacted]' OR i.context <> r.context OR i.source_url IS DISTINCT FROM r.source_url);

-- The words that left the search index's postings (the items trigger, at the end of the statement above) leave
-- its statistics too, as redaction does.
SELECT svc_search_fold(p.project_id, true)
FROM (SELECT DISTINCT cp.project_id FROM capture_promotions AS cp JOIN captures AS c ON c.id = cp.capture_id
      WHERE c.review_state = 'redacted') AS p;
