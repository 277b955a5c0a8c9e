-- release: v0.9.9
-- Phrases within one text, and camelCase identifiers found by their parts (issue 18, points 1 and 4). See
-- docs/decisions/0060-search-phrase-bounds-and-camel-case.md.
--
-- 1. A vector is built of blocks: an item's title, its body, then what 0015 and 0016 add to each (the parts of paths,
--    hosts and identifiers, positioned after the text). Each block's positions followed the last block's, so a phrase
--    matched across the join: "connection pool" found a title ending "connection" over a body starting "Pool", and
--    "notify channel" a title "Fix LISTEN/NOTIFY" over a body "channel leak" (a reviewer, 2026-11-28). Now 512
--    positions lie between blocks: a phrase of at most 1,000 characters spans at most 500 (each stop word in it one),
--    so none reaches across. A document's length counts its positions, not their values: BM25 is unchanged.
-- 2. A camelCase or PascalCase word (`connectionTimeoutMillis`, `HTTPServer`, `useEffect`) is indexed whole, as
--    before, then by its parts and every run of two to four of them, stemmed as words are: `timeout`, `millis`,
--    `connectionTimeout` and `timeoutMillis` find it (a newcomer, 2026-11-28: `timeout` missed the decision about
--    `connectionTimeoutMillis`). Query words are analysed as before: a camelCase query word is its whole.
-- 3. A URL right after punctuation (`[dashboard](https://…)`, `href="https://…"`) starts a run of its own. The text is
--    cut every 128 characters of a run without a space (0015: the parser is quadratic in a run), counted from the
--    run's start, and a query word is cut the same way from its own start: a URL over 128 characters after `(` was
--    cut in other places in the text than in the query, and was never found (a reviewer, 2026-11-28). A space now
--    goes before a scheme (`https://`, `http://`, `ftp://`, `ws(s)://`, `ssh://`, `git://`, `file://`) that follows
--    anything but a space, letter or digit; the parser splits there anyway, so shorter texts index as before.
-- Items', captures' and ideas' vectors are recomputed, and every project's index and statistics rebuilt, as 0018 did.

-- The text the parser reads (0015), a URL after punctuation starting a run of its own (3 above).
CREATE OR REPLACE FUNCTION svc_search_text(doc text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT regexp_replace(
           CASE WHEN strpos(doc, '://') = 0 THEN doc
                ELSE regexp_replace(doc, '([^[:space:][:alnum:]])((?:https?|ftp|wss?|ssh|git|file)://)', '\1 \2', 'gi') END,
           '([^[:space:]]{128})', '\1 ', 'g')
$$;

-- `a` then `b`, with 512 positions between them (none when either is empty). The gap is a lexeme no text holds (a
-- space in it) at the 512th position after `a`, deleted once `b` has been placed after it.
CREATE FUNCTION svc_vector_then(a tsvector, b tsvector) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT CASE WHEN length(a) = 0 OR length(b) = 0 THEN a || b
              ELSE ts_delete(a || ''' gap'':512'::tsvector || b, ' gap') END
$$;

-- 0015's vector of a text (svc_tsvector_base), its additions now a block of their own.
CREATE OR REPLACE FUNCTION svc_tsvector_base(doc text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  txt text := svc_search_text(doc);
  v tsvector := to_tsvector('english', txt);
  parts text;
  wholes text;
  added tsvector := ''::tsvector;
BEGIN
  IF txt ~ '[/.@][[:alnum:]]' THEN
    -- 4 email, 6 host, 18 url_path, 19 file (a url, 5, is also emitted as its host and url_path)
    SELECT string_agg(translate(t.token, '/.@', '   '), ' ') INTO parts
    FROM regexp_matches(txt, '[^[:space:]]*[/.@][[:alnum:]][^[:space:]]*', 'g') AS m, ts_parse('default', m[1]) AS t
    WHERE t.tokid IN (4, 6, 18, 19);
    IF parts IS NOT NULL THEN added := to_tsvector('english', parts); END IF;
  END IF;
  IF strpos(txt, '_') > 0 THEN
    -- Lexemes hold only letters, digits and / . _ -: quoted as they are, each occurrence its own position. Longer
    -- than to_tsvector indexes (2,047 bytes): left out, as to_tsvector leaves out such a word.
    SELECT string_agg('''' || x.w || ''':' || x.n, ' ') INTO wholes
    FROM (SELECT y.w, row_number() OVER () AS n FROM (
            SELECT lower(m[1]) AS w FROM regexp_matches(txt, '[[:alnum:]]+(?:[_-]+[[:alnum:]]+)+', 'g') AS m
            WHERE strpos(m[1], '_') > 0
            UNION ALL
            SELECT lower(m[1]) FROM regexp_matches(txt, '[[:alnum:]]+(?:[/._-]+[[:alnum:]]+)+', 'g') AS m
            WHERE strpos(m[1], '_') > 0 AND m[1] ~ '[/.]'
              AND NOT EXISTS (SELECT 1 FROM ts_parse('default', m[1]) AS t
                              WHERE t.tokid IN (4, 5, 6, 18, 19) AND t.token = m[1])
          ) AS y WHERE octet_length(y.w) < 2047) AS x;
    IF wholes IS NOT NULL THEN added := added || wholes::tsvector; END IF;
  END IF;
  RETURN svc_vector_then(v, added);
END $$;

-- The parts of a text's camelCase words, in the room left (svc_lexemes_in_room): for each word of 64 characters at
-- most with a lower-case letter or digit before a capital, or two capitals before a lower-case letter, its parts
-- (split there: `HTTPServer` is HTTP and Server) and the runs of two to four of them, joined (svc_joined_runs), each
-- analysed as a word (stemmed; a stop word is none). At most 4,000 words, every word's first occurrence first.
CREATE FUNCTION svc_tsvector_camel(doc text, room bigint) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  added tsvector;
BEGIN
  IF doc !~ '[[:lower:][:digit:]][[:upper:]]|[[:upper:]][[:upper:]][[:lower:]]' THEN RETURN ''::tsvector; END IF;
  SELECT l.added INTO added
  FROM svc_lexemes_in_room(array(
         SELECT x.lexeme
         FROM (SELECT d.w, row_number() OVER (ORDER BY d.rep, d.o) AS k
               FROM (SELECT m.r[1] AS w, m.o, row_number() OVER (PARTITION BY m.r[1] ORDER BY m.o) AS rep
                     FROM regexp_matches(svc_search_text(doc), '[[:alnum:]]+', 'g') WITH ORDINALITY AS m(r, o)
                     WHERE length(m.r[1]) <= 64 AND m.r[1] ~ '[[:lower:][:digit:]][[:upper:]]|[[:upper:]][[:upper:]][[:lower:]]') AS d
               ORDER BY d.rep, d.o
               LIMIT 4000) AS d,
              LATERAL (SELECT regexp_replace(regexp_replace(d.w, '([[:lower:][:digit:]])([[:upper:]])', '\1 \2', 'g'),
                                             '([[:upper:]])([[:upper:]][[:lower:]])', '\1 \2', 'g') AS split) AS s,
              LATERAL (SELECT string_agg(r.run, ' ') AS words
                       FROM (SELECT s.split AS run
                             UNION ALL
                             SELECT replace(j.run, ' ', '') FROM unnest(svc_joined_runs(s.split, ' ')) AS j(run)) AS r) AS w,
              LATERAL (SELECT u.lexeme, p.pos FROM unnest(to_tsvector('english', w.words)) AS u, unnest(u.positions) AS p(pos)) AS x
         ORDER BY d.k, x.pos), room) AS l;
  RETURN coalesce(added, ''::tsvector);
END $$;

-- A text's vector (idea search, svc_brief's keyword): 0015's, then 0016's and 0018's additions, then the camelCase
-- parts, each a block.
CREATE OR REPLACE FUNCTION svc_tsvector(doc text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  v tsvector := svc_tsvector_base(doc);
BEGIN
  v := svc_vector_then(v, svc_tsvector_pieces(doc, svc_vector_room(v)));
  RETURN svc_vector_then(v, svc_tsvector_camel(doc, svc_vector_room(v)));
END $$;

-- An item's vector (title and body) or a capture's (text and summary): the first text weighing A and the second B,
-- then each one's additions in the room the whole vector leaves (as 0016), each a block.
CREATE OR REPLACE FUNCTION svc_search_vector(a text, b text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  v tsvector := svc_vector_then(setweight(svc_tsvector_base(coalesce(a, '')), 'A'), setweight(svc_tsvector_base(coalesce(b, '')), 'B'));
BEGIN
  v := svc_vector_then(v, setweight(svc_tsvector_pieces(coalesce(a, ''), svc_vector_room(v)), 'A'));
  v := svc_vector_then(v, setweight(svc_tsvector_pieces(coalesce(b, ''), svc_vector_room(v)), 'B'));
  v := svc_vector_then(v, setweight(svc_tsvector_camel(coalesce(a, ''), svc_vector_room(v)), 'A'));
  RETURN svc_vector_then(v, setweight(svc_tsvector_camel(coalesce(b, ''), svc_vector_room(v)), 'B'));
END $$;

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
