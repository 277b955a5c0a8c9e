-- release: v0.9.0
-- Search ranks every match with BM25F (title above body) from a per-project inverted index kept current by a
-- trigger, and identifiers are words. See docs/decisions/0026-search-bm25.md.

-- Identifiers are words: the default parser keeps `LISTEN/NOTIFY`, `pg.Pool`, `/v1/orders` or `v0.8.1` as one
-- token. The vector keeps that token (so the whole stays findable) and appends the token's parts, after every
-- original position so phrases over the original text keep their adjacency.
CREATE FUNCTION svc_tsvector(doc text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT to_tsvector('english', doc) || to_tsvector('english', coalesce((
    SELECT string_agg(regexp_replace(m[1], '[/._-]+', ' ', 'g'), ' ')
    FROM regexp_matches(doc, '([[:alnum:]]+(?:[/._-]+[[:alnum:]]+)+)', 'g') AS m
  ), ''))
$$;

DROP INDEX items_project_search;
ALTER TABLE items DROP COLUMN search;
ALTER TABLE items ADD COLUMN search tsvector GENERATED ALWAYS AS (
  setweight(svc_tsvector(title), 'A') || setweight(svc_tsvector(body), 'B')
) STORED;
CREATE INDEX items_project_search ON items USING gin (project_id, search) WHERE is_head AND deleted_at IS NULL;

DROP INDEX captures_search;
ALTER TABLE captures DROP COLUMN search;
ALTER TABLE captures ADD COLUMN search tsvector GENERATED ALWAYS AS (
  setweight(svc_tsvector(text), 'A') || setweight(svc_tsvector(coalesce(summary, '')), 'B')
) STORED;
CREATE INDEX captures_search ON captures USING gin (search);

DROP INDEX ideas_search;
ALTER TABLE ideas DROP COLUMN search;
ALTER TABLE ideas ADD COLUMN search tsvector GENERATED ALWAYS AS (svc_tsvector(text)) STORED;
CREATE INDEX ideas_search ON ideas USING gin (search);

-- The inverted index: one posting per (term, current item). tf is the field-weighted term frequency
-- (3 × title occurrences + body occurrences), dl the item's length in indexed positions, impact the BM25
-- term-frequency factor computed with the project's reference length (search_stats.ref_avgdl): the order in
-- which a query reads a term's postings, best first. Scores are computed at query time with current statistics.
CREATE TABLE search_postings (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  term       text NOT NULL,
  item_id    uuid NOT NULL,
  tf         real NOT NULL,
  dl         integer NOT NULL,
  impact     real NOT NULL,
  PRIMARY KEY (project_id, term, item_id)
);
CREATE INDEX search_postings_impact ON search_postings (project_id, term, impact DESC, item_id DESC);

-- Statistics: a folded base (search_stats for document count and length, search_terms for document
-- frequency) plus append-only deltas that writers insert without touching a shared row. A writer folds the
-- deltas once enough of them pile up, only if no one else is folding (SKIP LOCKED): no writer ever waits on
-- another for statistics. Readers add base and deltas. term '' in search_deltas carries the document delta.
CREATE TABLE search_stats (
  project_id uuid PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  docs       bigint NOT NULL DEFAULT 0,
  total_len  bigint NOT NULL DEFAULT 0,
  ref_avgdl  real NOT NULL DEFAULT 64
);
CREATE TABLE search_terms (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  term       text NOT NULL,
  df         bigint NOT NULL,
  PRIMARY KEY (project_id, term)
);
CREATE TABLE search_deltas (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  term       text NOT NULL,
  docs       integer NOT NULL,
  len        integer NOT NULL DEFAULT 0
);
CREATE INDEX search_deltas_term ON search_deltas (project_id, term);

-- BM25 with k1 = 1.2, b = 0.75: the term-frequency factor tf / (tf + k1 (1 - b + b dl / avgdl)), in [0, 1).
CREATE FUNCTION svc_bm25_tf(tf real, dl integer, avgdl real) RETURNS real
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT (tf / (tf + 1.2 * (0.25 + 0.75 * dl / greatest(avgdl, 1))))::real
$$;

CREATE FUNCTION svc_search_add(p uuid, item uuid, vec tsvector) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  ref real;
BEGIN
  SELECT ref_avgdl INTO ref FROM search_stats WHERE project_id = p;
  IF NOT FOUND THEN
    INSERT INTO search_stats (project_id) VALUES (p) ON CONFLICT DO NOTHING;
    ref := 64;
  END IF;
  WITH t AS (
    SELECT u.lexeme AS term,
           3 * cardinality(array_positions(u.weights, 'A')) + cardinality(u.weights) - cardinality(array_positions(u.weights, 'A')) AS tf,
           cardinality(u.weights) AS n
    FROM unnest(vec) AS u
  ), d AS (SELECT coalesce(sum(n), 0)::integer AS dl FROM t),
  ins AS (
    INSERT INTO search_postings (project_id, term, item_id, tf, dl, impact)
    SELECT p, t.term, item, t.tf, d.dl, svc_bm25_tf(t.tf::real, d.dl, ref) FROM t, d
    RETURNING term
  )
  INSERT INTO search_deltas (project_id, term, docs, len)
  SELECT p, ins.term, 1, 0 FROM ins
  UNION ALL SELECT p, '', 1, d.dl FROM d WHERE d.dl > 0;
END $$;

CREATE FUNCTION svc_search_remove(p uuid, item uuid, vec tsvector) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  WITH gone AS (
    DELETE FROM search_postings
    WHERE project_id = p AND term = ANY (tsvector_to_array(vec)) AND item_id = item
    RETURNING term, dl
  )
  INSERT INTO search_deltas (project_id, term, docs, len)
  SELECT p, gone.term, -1, 0 FROM gone
  UNION ALL SELECT p, '', -1, -max(gone.dl) FROM gone HAVING count(*) > 0;
END $$;

-- Fold the deltas into the base, unless another transaction is folding (then it will, or the next writer).
-- Redaction waits for its turn instead (wait): the redacted words must leave the deltas and terms now.
CREATE FUNCTION svc_search_fold(p uuid, wait boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF wait THEN
    PERFORM 1 FROM search_stats WHERE project_id = p FOR UPDATE;
  ELSE
    PERFORM 1 FROM search_stats WHERE project_id = p FOR UPDATE SKIP LOCKED;
  END IF;
  IF NOT FOUND THEN RETURN; END IF;
  WITH gone AS (DELETE FROM search_deltas WHERE project_id = p RETURNING term, docs, len),
  sums AS (SELECT term, sum(docs) AS docs, sum(len) AS len FROM gone GROUP BY term),
  doc AS (
    UPDATE search_stats s SET docs = s.docs + sums.docs, total_len = s.total_len + sums.len
    FROM sums WHERE s.project_id = p AND sums.term = ''
  )
  INSERT INTO search_terms AS t (project_id, term, df)
  SELECT p, sums.term, sums.docs FROM sums WHERE sums.term <> '' AND sums.docs <> 0 ORDER BY sums.term
  ON CONFLICT (project_id, term) DO UPDATE SET df = t.df + excluded.df;
  DELETE FROM search_terms WHERE project_id = p AND df <= 0;
END $$;

-- Rebuild a project's index and statistics from its current items (migration, import); the reference length
-- becomes the current average length.
CREATE FUNCTION svc_search_rebuild(p uuid) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  total bigint;
  ref real;
BEGIN
  INSERT INTO search_stats (project_id) VALUES (p) ON CONFLICT DO NOTHING;
  PERFORM 1 FROM search_stats WHERE project_id = p FOR UPDATE;
  DELETE FROM search_postings WHERE project_id = p;
  DELETE FROM search_deltas WHERE project_id = p;
  DELETE FROM search_terms WHERE project_id = p;
  SELECT count(*) FILTER (WHERE l.len > 0), coalesce(sum(l.len), 0) INTO n, total
  FROM items i, LATERAL (SELECT coalesce(sum(cardinality(u.weights)), 0) AS len FROM unnest(i.search) AS u) AS l
  WHERE i.project_id = p AND i.is_head AND i.deleted_at IS NULL;
  ref := CASE WHEN n = 0 THEN 64 ELSE greatest(total::real / n, 1) END;
  INSERT INTO search_postings (project_id, term, item_id, tf, dl, impact)
  SELECT p, t.term, i.id, t.tf, d.dl, svc_bm25_tf(t.tf::real, d.dl, ref)
  FROM items i,
    LATERAL (
      SELECT u.lexeme AS term,
             3 * cardinality(array_positions(u.weights, 'A')) + cardinality(u.weights) - cardinality(array_positions(u.weights, 'A')) AS tf,
             cardinality(u.weights) AS n
      FROM unnest(i.search) AS u
    ) AS t,
    LATERAL (SELECT coalesce(sum(cardinality(u.weights)), 0)::integer AS dl FROM unnest(i.search) AS u) AS d
  WHERE i.project_id = p AND i.is_head AND i.deleted_at IS NULL;
  INSERT INTO search_terms (project_id, term, df)
  SELECT p, term, count(*) FROM search_postings WHERE project_id = p GROUP BY term;
  UPDATE search_stats SET docs = n, total_len = total, ref_avgdl = ref WHERE project_id = p;
END $$;

-- Keep the index current: a row enters it when it becomes a current, undeleted head and leaves it when it
-- stops being one or its text changes. Import sets svc.search_deferred and rebuilds once at the end.
CREATE FUNCTION svc_search_index() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  was boolean := false;
  live boolean := false;
  p uuid;
BEGIN
  IF coalesce(current_setting('svc.search_deferred', true), '') = 'on' THEN RETURN NULL; END IF;
  IF TG_OP <> 'INSERT' THEN was := OLD.is_head AND OLD.deleted_at IS NULL; p := OLD.project_id; END IF;
  IF TG_OP <> 'DELETE' THEN live := NEW.is_head AND NEW.deleted_at IS NULL; p := NEW.project_id; END IF;
  IF TG_OP = 'UPDATE' AND was AND live AND OLD.search = NEW.search AND OLD.project_id = NEW.project_id THEN RETURN NULL; END IF;
  IF NOT was AND NOT live THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' AND NOT EXISTS (SELECT 1 FROM projects WHERE id = OLD.project_id) THEN RETURN NULL; END IF;
  IF was THEN PERFORM svc_search_remove(OLD.project_id, OLD.id, OLD.search); END IF;
  IF live THEN PERFORM svc_search_add(NEW.project_id, NEW.id, NEW.search); END IF;
  IF (SELECT count(*) FROM (SELECT 1 FROM search_deltas WHERE project_id = p AND term = '' LIMIT 32) AS d) >= 32 THEN
    PERFORM svc_search_fold(p);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER items_search_index AFTER INSERT OR UPDATE OR DELETE ON items
  FOR EACH ROW EXECUTE FUNCTION svc_search_index();

SELECT svc_search_rebuild(id) FROM projects;
