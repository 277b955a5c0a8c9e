-- release: v0.9.7
-- Versions found with and without their `v` (issue 18, point 4). See docs/decisions/0052-search-versions.md.
--
-- PostgreSQL's parser reads `v0.8.1` as one file token (lexeme v0.8.1) and `0.8.1` as a version (lexeme 0.8.1): a
-- search for `0.8.1` did not find an item saying `v0.8.1`, nor `v0.8.1` one saying `0.8.1` (an outsider, 2026-11-27).
-- svc_tsvector_pieces now adds, after what 0016 adds and in the room the vector leaves, each version's other spelling.
-- Query words are analysed as before. Items', captures' and ideas' vectors are recomputed, and every project's index
-- and statistics rebuilt, as 0016 did.

CREATE OR REPLACE FUNCTION svc_tsvector_pieces(doc text, room bigint) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  txt text;
  added tsvector;
  parts text;
  tokens text[];
  spent bigint;
  v tsvector := ''::tsvector;
BEGIN
  -- Most texts hold none (the spaces svc_search_text puts in can split a run, never make one).
  IF strpos(doc, '_') = 0 AND doc !~ '[[:alnum:]]-[[:digit:]]' AND doc !~ '[/.@][[:alnum:]]' THEN RETURN v; END IF;
  txt := svc_search_text(doc);
  IF strpos(txt, '_') > 0 THEN
    SELECT l.added, l.spent INTO added, spent
    FROM svc_lexemes_in_room(array(
           SELECT lower(r.run)
           FROM (SELECT d.id FROM (SELECT m.r[1] AS id, m.o, row_number() OVER (PARTITION BY lower(m.r[1]) ORDER BY m.o) AS rep
                                   FROM regexp_matches(txt, '[[:alnum:]]+(?:[_-]+[[:alnum:]]+)+', 'g') WITH ORDINALITY AS m(r, o)
                                   WHERE strpos(m.r[1], '_') > 0) AS d
                 ORDER BY d.rep, d.o) AS d,
                unnest(svc_joined_runs(d.id, '_+')) AS r(run)
           LIMIT 4000), room) AS l;
    IF added IS NOT NULL THEN
      v := added;
      room := room - spent;
    END IF;
  END IF;
  IF txt ~ '[/.@][[:alnum:]]' THEN
    -- The hosts, paths, URLs' paths and e-mail addresses, as svc_tsvector_base reads them (4 email, 6 host, 18
    -- url_path, 19 file), in the text's order.
    SELECT array_agg(t.token ORDER BY m.c, t.o) INTO tokens
    FROM regexp_matches(txt, '[^[:space:]]*[/.@][[:alnum:]][^[:space:]]*', 'g') WITH ORDINALITY AS m(r, c),
         ts_parse(3722, m.r[1]) WITH ORDINALITY AS t(tokid, token, o)
    WHERE t.tokid IN (4, 6, 18, 19);
    parts := array_to_string(array(SELECT translate(k, '/.@', '   ') FROM unnest(tokens) AS k), ' ');
    -- Their runs of two to four parts, as the parser keeps such a run typed alone (`search.ts` and `prod.example.com`
    -- are hosts, `src/store` a file): at most 4,000, every token's first occurrence first; a token of two parts
    -- (`pg.Pool`) has none.
    SELECT l.added, l.spent INTO added, spent
    FROM svc_lexemes_in_room(array(
           SELECT r.run
           FROM (SELECT d.k FROM (SELECT lower(k.k) AS k, k.o, row_number() OVER (PARTITION BY lower(k.k) ORDER BY k.o) AS rep
                                  FROM unnest(tokens) WITH ORDINALITY AS k(k, o)
                                  WHERE k.k ~ '[/.@:][^/.@:]*[/.@:]') AS d
                 ORDER BY d.rep, d.o) AS d,
                unnest(svc_joined_runs(d.k, '[/.@:]+')) AS r(run)
           WHERE r.run ~ '[[:alnum:]]'
           LIMIT 4000), room) AS l;
    IF added IS NOT NULL THEN
      v := v || added;
      room := room - spent;
    END IF;
  END IF;
  IF txt ~ '[[:alnum:]]-[[:digit:]]' THEN
    SELECT l.added, l.spent INTO added, spent
    FROM svc_lexemes_in_room(array(SELECT lower(y.w) FROM svc_signed_parts(txt || coalesce(' ' || parts, '')) AS y(w)), room) AS l;
    IF added IS NOT NULL THEN
      v := v || added;
      room := room - spent;
    END IF;
  END IF;
  -- 0018: a version by both spellings, with its `v` and without (`v0.8.1`: 0.8.1; `0.8.1`: v0.8.1), each unless the
  -- parser gives it as a token of the text's run already, or signed (0016 adds a joined one unsigned; a number after
  -- a space stays signed), or 0016 adds it as a run of a path's parts (`/v1.2.3/x`), so it is counted once:
  -- `v4.4.4-beta` and `release-v0.8.1`
  -- are one run the parser reads otherwise, and get v4.4.4 and 4.4.4, v0.8.1 and 0.8.1. A version starts a token
  -- (nothing but a character other than a letter, digit or `.` before it: `node@v20.1.0`, `(0.8.1)`) and ends it (no
  -- letter or digit after it, nor a `.` and one: `1.2.3.4x` holds none); a bare one gets its `v` only with three parts
  -- or more (`1.2` is a number). At most 4,000, in the text's order.
  IF txt ~ '[[:digit:]]\.[[:digit:]]' THEN
    SELECT l.added INTO added
    FROM svc_lexemes_in_room(array(
           SELECT s.w
           FROM regexp_matches(txt, '[^[:space:]]*[[:digit:]]\.[[:digit:]][^[:space:]]*', 'g') WITH ORDINALITY AS c(r, n),
                regexp_matches(c.r[1], '(?<![[:alnum:].])([vV]?)([[:digit:]]+(?:\.[[:digit:]]+)+)(?!\.?[[:alnum:]])', 'g') WITH ORDINALITY AS m(r, o),
                LATERAL (VALUES (1, 'v' || m.r[2]), (2, m.r[2])) AS s(k, w)
           WHERE (s.k = 2 OR m.r[1] <> '' OR m.r[2] ~ '\.[[:digit:]]+\.')
             AND NOT EXISTS (SELECT 1 FROM ts_parse(3722, c.r[1]) AS t
                             WHERE lower(t.token) IN (s.w, '-' || s.w)
                                OR (t.tokid IN (4, 6, 18, 19) AND s.w = ANY (svc_joined_runs(lower(t.token), '[/.@:]+'))))
           ORDER BY c.n, m.o, s.k
           LIMIT 4000), room) AS l;
    IF added IS NOT NULL THEN v := v || added; END IF;
  END IF;
  RETURN v;
END $$;

-- The generated columns are recomputed by dropping and adding them again, with their indexes (as 0016 did), and every
-- project's index and statistics are rebuilt from the new vectors.
DROP INDEX items_project_search;
ALTER TABLE items DROP COLUMN search;
ALTER TABLE items ADD COLUMN search tsvector GENERATED ALWAYS AS (svc_search_vector(title, body)) STORED;
CREATE INDEX items_project_search ON items USING gin (project_id, search) WHERE is_head AND deleted_at IS NULL;

DROP INDEX captures_search;
ALTER TABLE captures DROP COLUMN search;
ALTER TABLE captures ADD COLUMN search tsvector GENERATED ALWAYS AS (svc_search_vector(text, summary)) STORED;
CREATE INDEX captures_search ON captures USING gin (search);

DROP INDEX ideas_search;
ALTER TABLE ideas DROP COLUMN search;
ALTER TABLE ideas ADD COLUMN search tsvector GENERATED ALWAYS AS (svc_tsvector(text)) STORED;
CREATE INDEX ideas_search ON ideas USING gin (search);

SELECT svc_search_rebuild(id) FROM projects;
