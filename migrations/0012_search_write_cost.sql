-- release: v0.9.1
-- Keeping the search index current costs less CPU per write (issue 18, "writes stay fast"); the index, its
-- impacts and its statistics are the same as 0011's. See docs/decisions/0026-search-bm25.md, "Measured".

-- The fold check reads only the deltas written since the project's last fold: search_deltas' ids only grow,
-- and a fold records the highest id it removed. The deleted rows below that id stay in the index until a
-- vacuum (PGlite never runs one), and 0011's check walked all of them on every write.
ALTER TABLE search_stats ADD COLUMN folded_id bigint NOT NULL DEFAULT 0;

-- As in 0011, and records the highest delta id folded.
CREATE OR REPLACE FUNCTION svc_search_fold(p uuid, wait boolean DEFAULT false) RETURNS void
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
  WITH gone AS (DELETE FROM search_deltas WHERE project_id = p RETURNING id, docs, len, terms),
  doc AS (SELECT coalesce(sum(docs), 0) AS docs, coalesce(sum(len), 0) AS len, max(id) AS last FROM gone),
  upd AS (
    UPDATE search_stats s SET docs = s.docs + doc.docs, total_len = s.total_len + doc.len,
      folded_id = greatest(s.folded_id, coalesce(doc.last, 0))
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

-- As in 0011, in one set-based statement: every row's vector is unnested once, its length (svc_search_dl) is
-- summed once per row, and the tf, impact (svc_bm25_tf) arithmetic is written inline with the same types and
-- operations, so the values are bit-identical to 0011's (neither function is inlined by the planner: a call
-- per posting cost more than the posting). Rows leaving the index delete their postings and rows entering it
-- insert theirs in the same statement: the delete sees only the postings that existed before it.
CREATE OR REPLACE FUNCTION svc_search_apply(dir integer[], proj uuid[], item uuid[], vec tsvector[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  p uuid;
BEGIN
  INSERT INTO search_stats (project_id)
  SELECT DISTINCT c.project_id FROM unnest(dir, proj) AS c (dir, project_id)
  WHERE c.dir > 0 AND NOT EXISTS (SELECT 1 FROM search_stats AS s WHERE s.project_id = c.project_id)
  ON CONFLICT DO NOTHING;

  WITH r AS (
    SELECT r.n, r.dir, r.project_id, r.id, r.search
    FROM unnest(dir, proj, item, vec) WITH ORDINALITY AS r (dir, project_id, id, search, n)
  ),
  u AS MATERIALIZED (
    SELECT r.n, r.dir, r.project_id, r.id, u.lexeme AS term,
           (3 * cardinality(array_positions(u.weights, 'A')) + cardinality(u.weights)
            - cardinality(array_positions(u.weights, 'A')))::real AS tf,
           cardinality(u.weights) AS len
    FROM r, unnest(r.search) AS u
  ),
  d AS MATERIALIZED (
    SELECT u.n, coalesce(sum(u.len), 0)::integer AS dl FROM u GROUP BY u.n
  ),
  k AS MATERIALIZED (
    SELECT u.dir, u.project_id, u.id, u.term, u.tf, d.dl,
           (u.tf / (u.tf + 1.2 * (0.25 + 0.75 * d.dl / greatest(st.ref_avgdl, 1))))::real AS impact
    FROM u JOIN d ON d.n = u.n JOIN search_stats AS st ON st.project_id = u.project_id
  ),
  del AS (
    DELETE FROM search_postings AS s USING k
    WHERE k.dir < 0 AND s.project_id = k.project_id AND s.term = k.term AND s.impact = k.impact
      AND s.item_id = k.id
  ),
  ins AS (
    INSERT INTO search_postings (project_id, term, item_id, tf, dl, impact)
    SELECT k.project_id, k.term, k.id, k.tf, k.dl, k.impact FROM k WHERE k.dir > 0
  )
  INSERT INTO search_deltas (project_id, docs, len, terms)
  SELECT r.project_id, r.dir, r.dir * d.dl, tsvector_to_array(r.search)
  FROM r JOIN d ON d.n = r.n WHERE d.dl > 0 ORDER BY r.dir, r.n;

  FOR p IN SELECT DISTINCT x FROM unnest(proj) AS x LOOP
    IF (SELECT count(*) FROM (
          SELECT 1 FROM search_deltas
          WHERE project_id = p
            AND id > coalesce((SELECT folded_id FROM search_stats WHERE project_id = p), 0)
          LIMIT 64) AS d) >= 64 THEN
      PERFORM svc_search_fold(p);
    END IF;
  END LOOP;
END $$;
