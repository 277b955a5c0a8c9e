-- release: v0.9.8
-- A glossary group's postings (issue 18, point 2). See docs/decisions/0053-search-glossary-group-postings.md.
--
-- A word the glossary expands is searched as an OR of its group's accepted terms, which for common words matches
-- most of a project: the threshold walk could not settle it, and scoring every posting cost 150-300 ms at 100k
-- items. Each accepted group now has postings of its own, under the term ' group:<group id>' (no lexeme holds a
-- space): per item holding any of the group's lexemes, the impact V = Σ w(t) × impact(t), over the group's lexemes
-- t the item holds, with w(t) the lexeme's idf when the group was last built (search_group_terms). An item's score
-- for those lexemes is at most (K1 + 1) × max(idf now / w) × V / min(1, ref / avgdl), so a search whose words are
-- exactly a group's lexemes walks one list, best V first, and checks only the items that may reach its page.
--
-- Upkeep: item writes add and remove their group postings with their own (svc_search_apply), under a shared
-- advisory lock per project; a change of a group's accepted terms (a term added, accepted, rejected, removed)
-- rebuilds that group's lexemes, weights and postings under the same lock held exclusively, so that no write
-- computes its group postings from a group definition that is being replaced. svc_search_rebuild rebuilds every
-- group with the rest of the index (fresh weights). An item's group postings are removed by their exact key, as
-- its other postings are: V is summed in float8 in the lexemes' order, so the same vector and weights give the
-- same real.

CREATE TABLE search_group_terms (
  project_id uuid NOT NULL,
  group_id   uuid NOT NULL,
  term       text NOT NULL,
  w          real NOT NULL,
  PRIMARY KEY (project_id, term, group_id)
);
CREATE INDEX search_group_terms_group ON search_group_terms (project_id, group_id);

-- The term a group's postings are kept under.
CREATE FUNCTION svc_search_group_key(g uuid) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT ' group:' || g::text $$;

-- The advisory lock key that orders item writes (shared) after group rebuilds (exclusive) in a project.
CREATE FUNCTION svc_search_group_lock(p uuid) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$ SELECT hashtextextended('svc search groups ' || p::text, 0) $$;

-- A group's lexemes as its accepted terms give them (those no rejection of the group names, each analysed as the
-- query's expansion analyses it), and as its index holds them (fewer than two: none).
CREATE FUNCTION svc_search_group_lexemes(p uuid, g uuid, OUT want text[], OUT have text[])
LANGUAGE sql STABLE AS $$
  SELECT array(
           SELECT DISTINCT l.term
           FROM glossary_terms AS s, unnest(svc_query_terms(s.term)) AS l (term)
           WHERE s.project_id = p AND s.group_id = g AND s.status = 'accepted'
             AND NOT EXISTS (SELECT 1 FROM glossary_rejections AS r WHERE r.group_id = s.group_id AND r.normalized = s.normalized)
           ORDER BY l.term),
         array(SELECT t.term FROM search_group_terms AS t WHERE t.project_id = p AND t.group_id = g ORDER BY t.term)
$$;

-- Rebuild the groups `gs` of project p: their lexemes, each weighted by its idf now, and their postings from the
-- project's postings. A group whose lexemes did not change (a term only proposed) keeps its weights and postings,
-- and the lock is not taken for it: item writes go on. `fresh` rebuilds every group (svc_search_rebuild).
CREATE FUNCTION svc_search_group_rebuild(p uuid, gs uuid[], fresh boolean DEFAULT false) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  g uuid;
  want text[];
  have text[];
  n numeric;
  locked boolean := false;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM projects WHERE id = p) THEN
    DELETE FROM search_group_terms WHERE project_id = p;
    RETURN;
  END IF;
  FOR g IN SELECT DISTINCT x FROM unnest(gs) AS x ORDER BY x LOOP
    SELECT l.want, l.have INTO want, have FROM svc_search_group_lexemes(p, g) AS l;
    CONTINUE WHEN (want = have OR (cardinality(want) < 2 AND cardinality(have) = 0)) AND NOT fresh;
    IF NOT locked THEN
      -- Every item write in flight commits first; the statements below (each with a fresh snapshot) see them.
      PERFORM pg_advisory_xact_lock(svc_search_group_lock(p));
      locked := true;
      n := coalesce((SELECT docs FROM search_stats WHERE project_id = p), 0)
             + coalesce((SELECT sum(docs) FROM search_deltas WHERE project_id = p), 0);
    END IF;
    SELECT l.want INTO want FROM svc_search_group_lexemes(p, g) AS l;
    DELETE FROM search_postings WHERE project_id = p AND term = svc_search_group_key(g);
    DELETE FROM search_group_terms WHERE project_id = p AND group_id = g;
    -- A group of one lexeme is that lexeme's own list: nothing to keep.
    CONTINUE WHEN cardinality(want) < 2;
    INSERT INTO search_group_terms (project_id, group_id, term, w)
    SELECT p, g, x.term, ln(1 + (n - x.df + 0.5) / (x.df + 0.5))::real
    FROM (SELECT u.term,
                 coalesce((SELECT df FROM search_terms AS s WHERE s.project_id = p AND s.term = u.term), 0)
                   + coalesce((SELECT sum(docs) FROM search_deltas AS d WHERE d.project_id = p AND u.term = ANY (d.terms)), 0) AS df
          FROM unnest(want) AS u (term)) AS x;
    INSERT INTO search_postings (project_id, term, item_id, tf, dl, impact)
    SELECT p, svc_search_group_key(g), s.item_id, 0, max(s.dl), sum(t.w::float8 * s.impact::float8 ORDER BY t.term)::real
    FROM search_group_terms AS t
    JOIN search_postings AS s ON s.project_id = p AND s.term = t.term
    WHERE t.project_id = p AND t.group_id = g
    GROUP BY s.item_id;
  END LOOP;
END $$;

-- As in 0013, with each row's group postings beside its own: what it adds and removes is computed from the
-- groups' lexemes and weights under the project's shared lock (taken in project order, before the statement that
-- reads them).
CREATE OR REPLACE FUNCTION svc_search_apply(dir integer[], proj uuid[], item uuid[], vec tsvector[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  p uuid;
BEGIN
  INSERT INTO search_stats (project_id)
  SELECT DISTINCT c.project_id FROM unnest(dir, proj) AS c (dir, project_id)
  WHERE c.dir > 0 AND NOT EXISTS (SELECT 1 FROM search_stats AS s WHERE s.project_id = c.project_id)
  ON CONFLICT DO NOTHING;

  FOR p IN SELECT DISTINCT x FROM unnest(proj) AS x ORDER BY x LOOP
    PERFORM pg_advisory_xact_lock_shared(svc_search_group_lock(p));
  END LOOP;

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
  g AS MATERIALIZED (
    SELECT k.n, k.dir, k.project_id, k.id, svc_search_group_key(t.group_id) AS term, 0::real AS tf, max(k.dl) AS dl,
           sum(t.w::float8 * k.impact::float8 ORDER BY t.term)::real AS impact
    FROM k JOIN search_group_terms AS t ON t.project_id = k.project_id AND t.term = k.term
    GROUP BY k.n, k.dir, k.project_id, k.id, t.group_id
  ),
  kg AS (
    SELECT k.dir, k.project_id, k.id, k.term, k.tf, k.dl, k.impact FROM k
    UNION ALL
    SELECT g.dir, g.project_id, g.id, g.term, g.tf, g.dl, g.impact FROM g
  ),
  del AS (
    DELETE FROM search_postings AS s USING kg
    WHERE kg.dir < 0 AND s.project_id = kg.project_id AND s.term = kg.term AND s.impact = kg.impact
      AND s.item_id = kg.id
  ),
  ins AS (
    INSERT INTO search_postings (project_id, term, item_id, tf, dl, impact)
    SELECT kg.project_id, kg.term, kg.id, kg.tf, kg.dl, kg.impact FROM kg WHERE kg.dir > 0
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

-- As in 0013, and then every group of the project rebuilt with fresh weights.
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
  DELETE FROM search_group_terms WHERE project_id = p;
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
  PERFORM svc_search_group_rebuild(p, array(SELECT id FROM glossary_groups WHERE project_id = p), true);
END $$;

-- A change of glossary terms or rejections rebuilds the groups it touches (unless an import defers the index:
-- its rebuild at the end builds every group).
CREATE FUNCTION svc_search_glossary() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  p uuid;
  gs uuid[];
BEGIN
  IF coalesce(current_setting('svc.search_deferred', true), '') = 'on' THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    FOR p, gs IN SELECT c.project_id, array_agg(DISTINCT c.group_id) FROM new_rows AS c GROUP BY c.project_id ORDER BY c.project_id LOOP
      PERFORM svc_search_group_rebuild(p, gs);
    END LOOP;
  ELSIF TG_OP = 'DELETE' THEN
    FOR p, gs IN SELECT c.project_id, array_agg(DISTINCT c.group_id) FROM old_rows AS c GROUP BY c.project_id ORDER BY c.project_id LOOP
      PERFORM svc_search_group_rebuild(p, gs);
    END LOOP;
  ELSE
    FOR p, gs IN
      SELECT c.project_id, array_agg(DISTINCT c.group_id)
      FROM (SELECT project_id, group_id FROM old_rows UNION ALL SELECT project_id, group_id FROM new_rows) AS c
      GROUP BY c.project_id ORDER BY c.project_id LOOP
      PERFORM svc_search_group_rebuild(p, gs);
    END LOOP;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER glossary_terms_search_insert AFTER INSERT ON glossary_terms
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_search_glossary();
CREATE TRIGGER glossary_terms_search_update AFTER UPDATE ON glossary_terms
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_search_glossary();
CREATE TRIGGER glossary_terms_search_delete AFTER DELETE ON glossary_terms
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_search_glossary();
CREATE TRIGGER glossary_rejections_search_insert AFTER INSERT ON glossary_rejections
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_search_glossary();
CREATE TRIGGER glossary_rejections_search_delete AFTER DELETE ON glossary_rejections
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION svc_search_glossary();

-- As in 0011, and the project's group lexemes with it.
CREATE OR REPLACE FUNCTION svc_search_forget() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM search_postings WHERE project_id = OLD.id;
  DELETE FROM search_deltas WHERE project_id = OLD.id;
  DELETE FROM search_group_terms WHERE project_id = OLD.id;
  RETURN NULL;
END $$;

SELECT svc_search_group_rebuild(g.project_id, array_agg(g.id), true) FROM glossary_groups AS g GROUP BY g.project_id;
