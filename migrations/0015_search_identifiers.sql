-- release: v0.9.4
-- Identifiers are words, each counted once (issue 18, point 4). See docs/decisions/0040-search-identifiers.md.
--
-- 0011's svc_tsvector appended the parts of every slash-, dot-, underscore- or hyphen-joined token. But the default
-- parser already emits the parts of an underscore-joined word (`svc_item_search`: svc, item, search; the whole is not
-- indexed) and of a hyphenated one (`read-only`: the whole, read, only), so those parts were counted twice (tf and
-- document length inflated, BM25 wrong), and an underscore identifier was never indexed whole: `is_head` (stop word
-- `is`) was searched as `head`. The parser keeps a path, file name, host, URL or e-mail address as one token
-- (`LISTEN/NOTIFY`, `pg.Pool`, `/v1/orders`, `v0.8.1`) and emits none of its parts.
--
-- Now every token is indexed once, as the parser gives it (to_tsvector), and after it, so that phrases over the text
-- keep their adjacency:
-- - the parts the parser did not emit: those of its file, host, url_path and email tokens (split at / . @, then
--   analysed as text), read from the whitespace-delimited chunks that hold such a token, not from the whole document;
-- - the whole of what the parser split at an underscore, lowercased and unstemmed: every `_`- or `-`-joined run of
--   letters and digits holding an underscore (`svc_item_search`, `node_modules` in `node_modules/.bin`), and every
--   run also joined by / or . (`foo.bar_baz`) that the parser does not keep as one token.
-- A document without `_`, or without a / . @ before a letter or digit, costs to_tsvector alone.
-- PL/pgSQL, IMMUTABLE and PARALLEL SAFE as a generated column needs; its statements are planned once per session, not
-- per write as an SQL function's body is.
-- The text the parser reads: a space after every 128 characters without one. PostgreSQL's parser takes time
-- quadratic in the length of a run such as `a_a_a_…` (it looks ahead for a host, file or URL at every token):
-- 16,000 characters took 4 s, a 1 MiB text hours, while it held the embedded database's only thread. Runs of at
-- most 128 keep it linear (about 1.5 s for 1 MiB of such a run, a few ms for ordinary text); a longer token (a URL
-- past 128 characters) is indexed in pieces. The analysis of queries and snippets reads text the same way.
CREATE FUNCTION svc_search_text(doc text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT regexp_replace(doc, '([^[:space:]]{128})', '\1 ', 'g')
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
  RETURN v;
END $$;

-- A query word or phrase, analysed to match what svc_tsvector indexes: every run of letters and digits joined by
-- / . _ - that holds an underscore is one term, its whole (lowercased, unstemmed), unless the parser keeps it within
-- one token of the query (a file name, host, URL or e-mail address: then that token is the term, as before). `wholes`
-- are those terms, `rest` the text without them, analysed as to_tsvector does (its parts are not terms: counting an
-- identifier as its whole and its parts would count it twice).
CREATE FUNCTION svc_query_split(q text, OUT wholes text[], OUT rest text)
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
END $$;

-- The lexemes a query word or phrase is scored by: its wholes and the lexemes of the rest.
CREATE FUNCTION svc_query_terms(q text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT array(SELECT DISTINCT x FROM unnest(s.wholes || tsvector_to_array(to_tsvector('english', s.rest))) AS x ORDER BY x)
  FROM svc_query_split(q) AS s
$$;

-- A query word as a tsquery: every term of svc_query_terms required (plainto_tsquery for a word without `_`).
CREATE FUNCTION svc_tsquery(q text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT CASE
    WHEN cardinality(s.wholes) = 0 THEN plainto_tsquery('english', s.rest)
    WHEN s.rest ~ '[[:alnum:]]' THEN plainto_tsquery('english', s.rest) && w.q
    ELSE w.q
  END
  FROM svc_query_split(q) AS s,
    LATERAL (SELECT array_to_string(array(SELECT '''' || x || '''' FROM unnest(s.wholes) AS x), ' & ')::tsquery AS q) AS w
$$;

-- The generated columns depend on svc_tsvector: recomputed by dropping and adding them again, with their indexes (as
-- 0011 did). Then every project's index and statistics are rebuilt from the new vectors.
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
