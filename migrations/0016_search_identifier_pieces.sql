-- release: v0.9.5
-- Identifiers found by their pieces (issue 18, point 4). See docs/decisions/0048-search-identifier-pieces.md.
--
-- 1. A number joined to a word by a hyphen is found by the number. PostgreSQL's parser reads `-` before a digit as a
--    sign: `RFC-0042` is the word rfc and the integer -0042, `2024-01-05` is 2024, -01, -05, `utf-8` is utf and -8.
--    So `0042`, `01` or `8` found nothing. Now, after what 0015 indexes, positioned after the text: each such
--    number without its sign (0042; 01, 05; 8), also in the parts of hosts, paths, URLs and e-mail addresses
--    (`web-01.prod.example.com`: 01). The parser's tokens stay, and query words are analysed as before: `RFC-0042`
--    is rfc and -0042, `2024-01` is 2024 and -01, both found where 0015 found them.
-- 2. An underscore identifier is found by every run of two to four of its parts, as written (`advisory_lock` and
--    `try_advisory_lock` in `pg_try_advisory_lock`): 0015 indexed the whole and the single parts only, so a query
--    for `advisory_lock` (one term, its whole) found nothing. The query side is unchanged.
-- 3. A path, host or e-mail address likewise, by its runs split at / . @ : (`search.ts` and `src/store` in
--    `src/store/search.ts`, `prod.example.com` in `db-01.prod.example.com`): the parser keeps such a run typed alone
--    as one token, which 0015 never indexed.

-- The signed numbers of a text that the parser joins to the token before them (int, float or sfloat right after a
-- token that is not a blank, in a whitespace-delimited chunk holding a letter or digit, a hyphen and a digit),
-- without their sign, in the text's order. A negative number after a space or a bracket (`-5`, `(-7)`) is not
-- joined; `ab-12cd` (a hyphenated word) and `/v1/orders-2` (a path) are tokens of their own. Not STRICT (a null text
-- has none all the same): a STRICT set-returning SQL function is not inlined into the statement calling it, and its
-- body was then planned again at every call (1.6 times the cost over 20,000 texts).
-- ts_parse is given the default parser by its OID (3722, fixed in PostgreSQL's catalog since 8.3): by name, each call
-- looked the parser up, which cost as much again as parsing a chunk.
CREATE FUNCTION svc_signed_parts(txt text) RETURNS SETOF text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT substr(t.token, 2)
  FROM (
    SELECT m.c, p.o, p.token,
           p.tokid IN (7, 20, 21) AND left(p.token, 1) = '-'
             AND coalesce(lag(p.tokid) OVER (PARTITION BY m.c ORDER BY p.o), 12) <> 12 AS joined
    FROM regexp_matches(txt, '[^[:space:]]*[[:alnum:]]-[[:digit:]][^[:space:]]*', 'g') WITH ORDINALITY AS m(r, c),
         ts_parse(3722, m.r[1]) WITH ORDINALITY AS p(tokid, token, o)
  ) AS t
  WHERE t.joined
  ORDER BY t.c, t.o
$$;

-- The runs of two to four parts of `w` (split at the separator pattern `sep`, the separators kept as written),
-- shorter than `w` itself, in order. For an underscore identifier (`_+`): `pg_try`, `pg_try_advisory`, `try_advisory`,
-- `try_advisory_lock`, `advisory_lock` for `pg_try_advisory_lock`; for a path or host (`[/.@:]+`): `src/store`,
-- `store/search`, `search.ts`, `src/store/search`, `store/search.ts` for `src/store/search.ts`, and `/v1` for
-- `/v1/orders` (a leading separator is an empty first part); a run after a `/` also with it, before it (`/v1/orders`
-- in `/api/v1/orders/42`, as a path is typed). At most six per part (a run of 128 characters has at most 64 parts).
-- Each run is cut from `w` between its first part's start and its last part's end. A loop over the parts: as a SQL
-- statement (window sums over the parts, a row per run) it cost twice as much, and built in a subquery per run
-- 3.5 to 4.5 times as much again.
CREATE FUNCTION svc_joined_runs(w text, sep text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  parts text[] := regexp_split_to_array(w, sep);
  seps text[] := array(SELECT m[1] FROM regexp_matches(w, '(' || sep || ')', 'g') AS m);
  n int := cardinality(parts);
  starts int[] := '{}';
  ends int[] := '{}';
  runs text[] := '{}';
  pos int := 1;
  run text;
BEGIN
  IF n < 3 THEN RETURN runs; END IF;
  FOR k IN 1..n LOOP
    starts[k] := pos;
    ends[k] := pos + length(parts[k]) - 1;
    pos := ends[k] + 1 + coalesce(length(seps[k]), 0);
  END LOOP;
  FOR k IN 1..n - 1 LOOP
    FOR len IN 2..least(4, n - k + 1, n - 1) LOOP
      run := substr(w, starts[k], ends[k + len - 1] - starts[k] + 1);
      IF k > 1 AND parts[k - 1] <> '' AND right(seps[k - 1], 1) = '/' THEN runs := runs || ('/' || run); END IF;
      runs := runs || run;
    END LOOP;
  END LOOP;
  RETURN runs;
END $$;

-- 0015's svc_tsvector, as it was (renamed; the generated columns, which name it by its id, are added again below):
-- every token once as the parser gives it, the parts of hosts, paths, URLs and e-mail addresses, the wholes of
-- underscore identifiers. What 0016 adds comes after it, in the room it leaves.
ALTER FUNCTION svc_tsvector(text) RENAME TO svc_tsvector_base;

-- How many bytes a tsvector's lexemes and positions may still grow before PostgreSQL refuses it ("string is too long
-- for tsvector": 1 MiB less one byte): its size less the header and an entry of 4 bytes per lexeme, and 64 bytes
-- to spare.
CREATE FUNCTION svc_vector_room(v tsvector) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT AS $$
  SELECT 1048575 - 64 - (pg_column_size(v) - 8 - 4 * length(v))
$$;

-- What 0016 adds to a text's vector, positioned after it, each lexeme once with at most 256 positions (as to_tsvector
-- keeps), while it fits in `room` bytes (counted at its length, 3 bytes and 2 per position, at least what it takes):
-- a body that 0015 indexed must still be (else its write is refused, and this migration would stop on it), and a
-- body dense with distinct ticket ids (`OPS-100001 …`, 660 KB) would go over with their numbers.
-- - The runs of each underscore identifier's parts (svc_joined_runs): at most 4,000 in a text (1 MiB of
--   `a_b_c_d_e_f_g_h` would have a million; a list of 250 changed files has 2,500), every identifier's first occurrence before any repeat (a code excerpt
--   repeating one identifier would use them up). The identifiers are read in that order and PostgreSQL's nested
--   loop keeps it up to the LIMIT, which stops the runs being made (an ORDER BY over the runs would make them all).
-- - The runs of the parts of its hosts, paths, URLs' paths and e-mail addresses (svc_joined_runs at / . @ and the
--   colon before a port: `prod.example.com` in `db-01.prod.example.com:5432`), with the same cap and order.
-- - The numbers joined by a hyphen, in the text and in the parts of its hosts, paths, URLs and e-mail addresses.
-- Lexemes `ws` (in the text's order, each its own position) as a tsvector, each lexeme once with at most 256 positions
-- (as to_tsvector keeps), while they fit in `room` bytes (each counted at its length, 3 bytes and 2 per position, at
-- least what it takes), first ones first; and the bytes they take. A lexeme longer than to_tsvector indexes (2,047
-- bytes) is left out, as to_tsvector leaves out such a word, and so is one holding a quote or backslash (the runs
-- and numbers hold only letters, digits and / . _ - + : @, quoted as they are).
CREATE FUNCTION svc_lexemes_in_room(ws text[], room bigint, OUT added tsvector, OUT spent bigint)
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
BEGIN
  -- Each lexeme's positions go in as they come: the tsvector's input sorts them, merges repeats and keeps the first
  -- 256, as to_tsvector does (sorting each lexeme's positions in an ordered aggregate cost a third of the function).
  SELECT string_agg('''' || x.w || ''':' || x.n, ' ')::tsvector, max(k.spent) INTO added, spent
  FROM (SELECT g.w, sum(octet_length(g.w) + 3 + 2 * g.npos) OVER (ORDER BY g.first ROWS UNBOUNDED PRECEDING) AS spent
        FROM (SELECT x.w, min(x.n) AS first, least(count(*), 256) AS npos
              FROM unnest(ws) WITH ORDINALITY AS x(w, n)
              WHERE octet_length(x.w) < 2047 AND strpos(x.w, '''') = 0 AND strpos(x.w, '\') = 0
              GROUP BY x.w) AS g) AS k
  JOIN unnest(ws) WITH ORDINALITY AS x(w, n) ON x.w = k.w
  WHERE k.spent <= room;
END $$;

CREATE FUNCTION svc_tsvector_pieces(doc text, room bigint) RETURNS tsvector
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
    SELECT l.added INTO added
    FROM svc_lexemes_in_room(array(SELECT lower(y.w) FROM svc_signed_parts(txt || coalesce(' ' || parts, '')) AS y(w)), room) AS l;
    IF added IS NOT NULL THEN v := v || added; END IF;
  END IF;
  RETURN v;
END $$;

-- A text's vector: 0015's, then what 0016 adds in the room left (idea search's column, and the analysis tests).
CREATE FUNCTION svc_tsvector(doc text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE STRICT AS $$
DECLARE
  v tsvector := svc_tsvector_base(doc);
BEGIN
  RETURN v || svc_tsvector_pieces(doc, svc_vector_room(v));
END $$;

-- The vector of an item (title and body) or a capture (text and summary): 0015's column as it was, the first text's
-- weighing A and the second's B, then what 0016 adds to each, in the room the whole vector leaves (the room of one
-- text alone was not enough: its additions filled it, and the other text's words then took the vector over).
CREATE FUNCTION svc_search_vector(a text, b text) RETURNS tsvector
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  v tsvector := setweight(svc_tsvector_base(coalesce(a, '')), 'A') || setweight(svc_tsvector_base(coalesce(b, '')), 'B');
BEGIN
  v := v || setweight(svc_tsvector_pieces(coalesce(a, ''), svc_vector_room(v)), 'A');
  RETURN v || setweight(svc_tsvector_pieces(coalesce(b, ''), svc_vector_room(v)), 'B');
END $$;

-- The generated columns are recomputed by dropping and adding them again, with their indexes (as 0015 did); items and
-- captures now read svc_search_vector. Then every project's index and statistics are rebuilt from the new vectors.
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
