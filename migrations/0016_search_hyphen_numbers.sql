-- release: v0.9.5
-- A word joined to a number by a hyphen is found by the number and by the whole (issue 18, point 4). See
-- docs/decisions/0048-search-hyphen-numbers.md.
--
-- PostgreSQL's parser reads `-` before a digit as a sign: `RFC-0042` is the word rfc and the integer -0042,
-- `2024-01-05` is 2024, -01, -05, `utf-8` is utf and -8. So `0042`, `01` or `8` found nothing, and `RFC-0042` was
-- searched as rfc and -0042 anywhere in an item. Now, after what 0015 indexes, positioned after the text: the whole
-- of each such run, lowercased (`rfc-0042`, `2024-01-05`, `node-20.1`), and each joined number without its sign
-- (0042; 01, 05; 20.1). The parser's own tokens stay, so phrases over the text keep their adjacency. A query word
-- holding such a run is matched and scored by the whole, as an underscore identifier is (0015).

-- The runs of a text: in each whitespace-delimited chunk holding a letter or digit, a hyphen and a digit, every
-- signed number (int, float, sfloat) the parser emits right after a token that is not a blank is joined to what
-- precedes it; `whole` is the joined run as written, `parts` its numbers without the sign, in the text's order.
-- A negative number after a space or a bracket (`-5`, `(-7)`) is not joined; the parser keeps `ab-12cd` (a
-- hyphenated word) and `/v1/orders-2` (a path) as tokens of their own, without a signed number.
-- Not STRICT (a null text has no runs all the same): a STRICT set-returning SQL function is not inlined into the
-- statement calling it, and its body was then planned again at every call (1.6 times the cost over 20,000 texts).
CREATE FUNCTION svc_number_runs(txt text) RETURNS TABLE (whole text, parts text[])
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT string_agg(g.token, '' ORDER BY g.o), array_agg(substr(g.token, 2) ORDER BY g.o) FILTER (WHERE g.joined)
  FROM (
    SELECT t.c, t.o, t.token, t.joined, count(*) FILTER (WHERE NOT t.joined) OVER (PARTITION BY t.c ORDER BY t.o) AS run
    FROM (
      SELECT m.c, p.o, p.token,
             p.tokid IN (7, 20, 21) AND left(p.token, 1) = '-'
               AND coalesce(lag(p.tokid) OVER (PARTITION BY m.c ORDER BY p.o), 12) <> 12 AS joined
      FROM regexp_matches(txt, '[^[:space:]]*[[:alnum:]]-[[:digit:]][^[:space:]]*', 'g') WITH ORDINALITY AS m(r, c),
           ts_parse('default', m.r[1]) WITH ORDINALITY AS p(tokid, token, o)
    ) AS t
  ) AS g
  GROUP BY g.c, g.run
  HAVING bool_or(g.joined)
  ORDER BY g.c, g.run
$$;

CREATE OR REPLACE FUNCTION svc_tsvector(doc text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  txt text := svc_search_text(doc);
  v tsvector := to_tsvector('english', txt);
  parts text;
  wholes text;
BEGIN
  IF txt ~ '[/.@][[:alnum:]]' THEN
    -- 4 email, 6 host, 18 url_path, 19 file (a url, 5, is also emitted as its host and url_path)
    SELECT string_agg(translate(t.token, '/.@', '   '), ' ') INTO parts
    FROM regexp_matches(txt, '[^[:space:]]*[/.@][[:alnum:]][^[:space:]]*', 'g') AS m, ts_parse('default', m[1]) AS t
    WHERE t.tokid IN (4, 6, 18, 19);
    IF parts IS NOT NULL THEN v := v || to_tsvector('english', parts); END IF;
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
    IF wholes IS NOT NULL THEN v := v || wholes::tsvector; END IF;
  END IF;
  IF txt ~ '[[:alnum:]]-[[:digit:]]' THEN
    -- The whole of each run, then its numbers. A run is at most 128 characters (svc_search_text); its tokens hold
    -- letters, digits, `-`, `.` and `+`, doubled where a tsvector's text needs it all the same.
    SELECT string_agg('''' || replace(replace(x.w, '\', '\\'), '''', '''''') || ''':' || x.n, ' ') INTO wholes
    FROM (SELECT y.w, row_number() OVER () AS n
          FROM svc_number_runs(txt) AS r, unnest(lower(r.whole) || r.parts) WITH ORDINALITY AS y(w, k)) AS x;
    IF wholes IS NOT NULL THEN v := v || wholes::tsvector; END IF;
  END IF;
  RETURN v;
END $$;

-- 0015's analysis of a query word or phrase, and the runs above: each is a term, its whole, taken out of `rest`.
CREATE OR REPLACE FUNCTION svc_query_split(q text, OUT wholes text[], OUT rest text)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  run text;
  scan integer := 1;
  at integer := 1;
  p integer;
BEGIN
  q := svc_search_text(q);
  wholes := '{}';
  rest := '';
  IF strpos(q, '_') > 0 THEN
    FOR run IN SELECT m[1] FROM regexp_matches(q, '[[:alnum:]]+(?:[/._-]+[[:alnum:]]+)+', 'g') AS m LOOP
      p := scan - 1 + strpos(substr(q, scan), run);
      scan := p + length(run);
      IF strpos(run, '_') > 0 AND octet_length(run) < 2047 AND NOT EXISTS (
           SELECT 1 FROM ts_parse('default', q) AS t WHERE t.tokid IN (4, 5, 6, 18, 19) AND strpos(t.token, run) > 0) THEN
        wholes := wholes || lower(run);
        rest := rest || substr(q, at, p - at) || ' ';
        at := scan;
      END IF;
    END LOOP;
  END IF;
  rest := rest || substr(q, at);
  IF rest ~ '[[:alnum:]]-[[:digit:]]' THEN
    scan := 1;
    FOR run IN SELECT r.whole FROM svc_number_runs(rest) AS r LOOP
      p := scan - 1 + strpos(substr(rest, scan), run);
      wholes := wholes || lower(run);
      rest := overlay(rest PLACING ' ' FROM p FOR length(run));
      scan := p + 1;
    END LOOP;
  END IF;
END $$;

-- The generated columns depend on svc_tsvector: recomputed by dropping and adding them again, with their indexes (as
-- 0015 did). Then every project's index and statistics are rebuilt from the new vectors.
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

SELECT svc_search_rebuild(id) FROM projects;
