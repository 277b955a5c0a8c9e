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
-- The two tables every write touches (postings, deltas) carry no foreign key: a key check per posting costs
-- more than the posting's index entries; svc_search_forget removes a deleted project's rows instead.
CREATE TABLE search_postings (
  project_id uuid NOT NULL,
  term       text NOT NULL,
  item_id    uuid NOT NULL,
  tf         real NOT NULL,
  dl         integer NOT NULL,
  impact     real NOT NULL
);
-- One index only (each posting is an index entry per write): reads walk a term's postings best impact
-- first; a write removes a posting by its exact key, the impact recomputed from the item's old vector and the
-- project's reference length (unchanged since the posting was written: only a rebuild changes it, and a
-- rebuild rewrites every posting). A query scores an item from its own vector, not from its postings.
CREATE INDEX search_postings_impact ON search_postings (project_id, term, impact DESC, item_id DESC);

-- Statistics: a folded base (search_stats for document count and length, search_terms for document
-- frequency) plus append-only deltas that writers insert without touching a shared row: one row per item
-- entering (docs +1) or leaving (docs -1) the index, with its length and its distinct terms. A writer folds the
-- deltas once enough of them pile up, only if no one else is folding (SKIP LOCKED): no writer ever waits on
-- another for statistics. Readers add base and deltas (a term's delta: the rows whose terms hold it).
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
  project_id uuid NOT NULL,
  id         bigint GENERATED ALWAYS AS IDENTITY,
  docs       integer NOT NULL,
  len        integer NOT NULL,
  terms      text[] NOT NULL,
  PRIMARY KEY (project_id, id)
);

-- BM25 with k1 = 1.2, b = 0.75: the term-frequency factor tf / (tf + k1 (1 - b + b dl / avgdl)), in [0, 1).
CREATE FUNCTION svc_bm25_tf(tf real, dl integer, avgdl real) RETURNS real
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT (tf / (tf + 1.2 * (0.25 + 0.75 * dl / greatest(avgdl, 1))))::real
$$;

-- An item's length: its indexed positions (title and body, stop words excluded).
CREATE FUNCTION svc_search_dl(vec tsvector) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT coalesce(sum(cardinality(u.weights)), 0)::integer FROM unnest(vec) AS u
$$;

-- Fold the deltas into the base, unless another transaction is folding (then it will, or the next writer).
-- Redaction waits for its turn instead (wait): the redacted words must leave the deltas and terms now.
CREATE FUNCTION svc_search_fold(p uuid, wait boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  dead text[];
BEGIN
  IF wait THEN
    PERFORM 1 FROM search_stats WHERE project_id = p FOR UPDATE;
  ELSE
    PERFORM 1 FROM search_stats WHERE project_id = p FOR UPDATE SKIP LOCKED;
  END IF;
  IF NOT FOUND THEN RETURN; END IF;
  WITH gone AS (DELETE FROM search_deltas WHERE project_id = p RETURNING docs, len, terms),
  doc AS (SELECT coalesce(sum(docs), 0) AS docs, coalesce(sum(len), 0) AS len FROM gone),
  upd AS (
    UPDATE search_stats s SET docs = s.docs + doc.docs, total_len = s.total_len + doc.len
    FROM doc WHERE s.project_id = p
  ),
  sums AS (
    SELECT t.term, sum(g.docs) AS docs FROM gone AS g, unnest(g.terms) AS t (term)
    GROUP BY t.term HAVING sum(g.docs) <> 0
  ),
  up AS (
    INSERT INTO search_terms AS t (project_id, term, df)
    SELECT p, sums.term, sums.docs FROM sums ORDER BY sums.term
    ON CONFLICT (project_id, term) DO UPDATE SET df = t.df + excluded.df
    RETURNING t.term, t.df
  )
  SELECT array_agg(up.term) FILTER (WHERE up.df <= 0) INTO dead FROM up;
  IF dead IS NOT NULL THEN
    DELETE FROM search_terms WHERE project_id = p AND term = ANY (dead);
  END IF;
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
    LATERAL (SELECT svc_search_dl(i.search) AS dl) AS d
  WHERE i.project_id = p AND i.is_head AND i.deleted_at IS NULL;
  INSERT INTO search_terms (project_id, term, df)
  SELECT p, term, count(*) FROM search_postings WHERE project_id = p GROUP BY term;
  UPDATE search_stats SET docs = n, total_len = total, ref_avgdl = ref WHERE project_id = p;
END $$;

-- Apply a statement's changes to the index: dir -1 for a row leaving it (its postings deleted), +1 for one
-- entering it (postings inserted with impacts from the project's reference length), one delta row each.
-- Then fold any project whose deltas reached 64 rows.
CREATE FUNCTION svc_search_apply(dir integer[], proj uuid[], item uuid[], vec tsvector[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  p uuid;
BEGIN
  WITH c AS (
    SELECT c.project_id, c.id, c.search, svc_search_dl(c.search) AS dl
    FROM unnest(dir, proj, item, vec) AS c (dir, project_id, id, search) WHERE c.dir < 0
  ),
  del AS (
    DELETE FROM search_postings AS s
    USING c JOIN search_stats AS st ON st.project_id = c.project_id,
      LATERAL unnest(c.search) AS u,
      LATERAL (SELECT (3 * cardinality(array_positions(u.weights, 'A')) + cardinality(u.weights)
                       - cardinality(array_positions(u.weights, 'A')))::real AS tf) AS t
    WHERE s.project_id = c.project_id AND s.term = u.lexeme AND s.impact = svc_bm25_tf(t.tf, c.dl, st.ref_avgdl)
      AND s.item_id = c.id
  )
  INSERT INTO search_deltas (project_id, docs, len, terms)
  SELECT c.project_id, -1, -c.dl, tsvector_to_array(c.search) FROM c WHERE c.dl > 0;

  INSERT INTO search_stats (project_id)
  SELECT DISTINCT c.project_id FROM unnest(dir, proj) AS c (dir, project_id)
  WHERE c.dir > 0 AND NOT EXISTS (SELECT 1 FROM search_stats AS s WHERE s.project_id = c.project_id)
  ON CONFLICT DO NOTHING;
  WITH c AS (
    SELECT c.project_id, c.id, c.search, svc_search_dl(c.search) AS dl
    FROM unnest(dir, proj, item, vec) AS c (dir, project_id, id, search) WHERE c.dir > 0
  ),
  ins AS (
    INSERT INTO search_postings (project_id, term, item_id, tf, dl, impact)
    SELECT c.project_id, u.lexeme, c.id, t.tf, c.dl, svc_bm25_tf(t.tf, c.dl, s.ref_avgdl)
    FROM c JOIN search_stats AS s ON s.project_id = c.project_id,
      LATERAL unnest(c.search) AS u,
      LATERAL (SELECT (3 * cardinality(array_positions(u.weights, 'A')) + cardinality(u.weights)
                       - cardinality(array_positions(u.weights, 'A')))::real AS tf) AS t
  )
  INSERT INTO search_deltas (project_id, docs, len, terms)
  SELECT c.project_id, 1, c.dl, tsvector_to_array(c.search) FROM c WHERE c.dl > 0;

  FOR p IN SELECT DISTINCT x FROM unnest(proj) AS x LOOP
    IF (SELECT count(*) FROM (SELECT 1 FROM search_deltas WHERE project_id = p LIMIT 64) AS d) >= 64 THEN
      PERFORM svc_search_fold(p);
    END IF;
  END LOOP;
END $$;

-- Keep the index current, one statement at a time (transition tables: a bulk insert costs a few set-based
-- statements, not a function call per row). A row enters the index when it becomes a current, undeleted head
-- and leaves it when it stops being one, moves or its text changes; any other update (a task's status, its
-- context) writes nothing. Rows deleted with their project (cascade) leave the index with the project.
-- Import sets svc.search_deferred and rebuilds once at the end.
CREATE FUNCTION svc_search_index() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  d integer[];
  pr uuid[];
  it uuid[];
  v tsvector[];
BEGIN
  IF coalesce(current_setting('svc.search_deferred', true), '') = 'on' THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(1), array_agg(n.project_id), array_agg(n.id), array_agg(n.search) INTO d, pr, it, v
    FROM new_rows AS n WHERE n.is_head AND n.deleted_at IS NULL;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(-1), array_agg(o.project_id), array_agg(o.id), array_agg(o.search) INTO d, pr, it, v
    FROM old_rows AS o
    WHERE o.is_head AND o.deleted_at IS NULL AND EXISTS (SELECT 1 FROM projects WHERE id = o.project_id);
  ELSE
    SELECT array_agg(c.dir), array_agg(c.project_id), array_agg(c.id), array_agg(c.search) INTO d, pr, it, v
    FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id,
      LATERAL (VALUES (-1, o.project_id, o.id, o.search, o.is_head AND o.deleted_at IS NULL),
                      (1, n.project_id, n.id, n.search, n.is_head AND n.deleted_at IS NULL)) AS c (dir, project_id, id, search, live)
    WHERE c.live
      AND NOT (o.is_head AND o.deleted_at IS NULL AND n.is_head AND n.deleted_at IS NULL
               AND o.search = n.search AND o.project_id = n.project_id);
  END IF;
  IF d IS NOT NULL THEN PERFORM svc_search_apply(d, pr, it, v); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER items_search_insert AFTER INSERT ON items
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_search_index();
CREATE TRIGGER items_search_update AFTER UPDATE ON items
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_search_index();
CREATE TRIGGER items_search_delete AFTER DELETE ON items
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_search_index();

CREATE FUNCTION svc_search_forget() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_postings WHERE project_id = OLD.id;
  DELETE FROM search_deltas WHERE project_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER projects_search_forget AFTER DELETE ON projects
  FOR EACH ROW EXECUTE FUNCTION svc_search_forget();

SELECT svc_search_rebuild(id) FROM projects;
