-- release: v0.9.2
-- A posting is defined once, and the rebuild computes it the way writes do, set-based and in index order
-- (issue 18: a rebuild of a 100k-item project ran past the 600 s statement timeout). The index, its impacts
-- and its statistics are the same as 0011's and 0012's. See docs/decisions/0032-search-rebuild-and-near-misses.md.

-- The one definition of an item's postings: per lexeme of its vector, the field-weighted term frequency
-- tf = 3 × title (weight A) occurrences + body occurrences, the item's length dl (its indexed positions) and
-- the impact, BM25's term-frequency factor tf / (tf + k1 (1 - b + b dl / ref)) with k1 = 1.2, b = 0.75, for
-- the reference length `ref`. The types and operations are those of svc_bm25_tf and 0012's inline arithmetic,
-- so the values are bit-identical to theirs; the vector is unnested once (dl is a window sum over it). An SQL
-- set-returning function that is neither STRICT nor VOLATILE: the planner inlines it where it is called in FROM,
-- so it costs no function call per item or posting.
CREATE FUNCTION svc_search_postings(vec tsvector, ref real) RETURNS TABLE (term text, tf real, dl integer, impact real)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT x.term, x.tf, x.dl, (x.tf / (x.tf + 1.2 * (0.25 + 0.75 * x.dl / greatest(ref, 1))))::real
  FROM (SELECT w.lexeme AS term,
               (3 * cardinality(array_positions(w.weights, 'A')) + cardinality(w.weights)
                - cardinality(array_positions(w.weights, 'A')))::real AS tf,
               (sum(cardinality(w.weights)) OVER ())::integer AS dl
        FROM unnest(vec) AS w) AS x
$$;

-- An item's length, from the same definition (0 for an item without terms).
CREATE OR REPLACE FUNCTION svc_search_dl(vec tsvector) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT coalesce(max(p.dl), 0) FROM svc_search_postings(vec, 1) AS p
$$;

-- As in 0012, with the postings from svc_search_postings.
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
  k AS MATERIALIZED (
    SELECT r.n, r.dir, r.project_id, r.id, k.term, k.tf, k.dl, k.impact
    FROM r JOIN search_stats AS st ON st.project_id = r.project_id,
      LATERAL svc_search_postings(r.search, st.ref_avgdl) AS k
  ),
  d AS MATERIALIZED (
    SELECT k.n, max(k.dl) AS dl FROM k GROUP BY k.n
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

-- As in 0011 (the reference length becomes the current average length), in two passes over the project's
-- current items: their lengths, then their postings from svc_search_postings, inserted in the index's key order
-- (a btree filled in order touches each leaf once; in item order every posting lands on a random leaf), with
-- the document frequencies counted from the same rows rather than read back from the postings.
CREATE OR REPLACE FUNCTION svc_search_rebuild(p uuid) RETURNS void
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
  SELECT count(*) FILTER (WHERE l.dl > 0), coalesce(sum(l.dl), 0) INTO n, total
  FROM items AS i, LATERAL (SELECT svc_search_dl(i.search) AS dl) AS l
  WHERE i.project_id = p AND i.is_head AND i.deleted_at IS NULL;
  ref := CASE WHEN n = 0 THEN 64 ELSE greatest(total::real / n, 1) END;
  WITH k AS MATERIALIZED (
    SELECT i.id, k.term, k.tf, k.dl, k.impact
    FROM items AS i, LATERAL svc_search_postings(i.search, ref) AS k
    WHERE i.project_id = p AND i.is_head AND i.deleted_at IS NULL
  ),
  ins AS (
    INSERT INTO search_postings (project_id, term, item_id, tf, dl, impact)
    SELECT p, k.term, k.id, k.tf, k.dl, k.impact FROM k ORDER BY k.term, k.impact DESC, k.id DESC
  )
  INSERT INTO search_terms (project_id, term, df)
  SELECT p, k.term, count(*) FROM k GROUP BY k.term ORDER BY k.term;
  UPDATE search_stats SET docs = n, total_len = total, ref_avgdl = ref WHERE project_id = p;
END $$;
