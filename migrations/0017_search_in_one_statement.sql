-- release: v0.9.6
-- A one-word search in one statement (issue 18). See docs/decisions/0050-search-in-one-statement.md.
--
-- A search ran in a read-only repeatable-read transaction: begin, the project and its glossary, the analysis with the
-- first postings, commit. Four round trips where the work is one statement's, and each costs the client a system
-- call and a wake-up of the server (at 5,000 items: 1.7 ms p50 and 4.0 ms p95 of a 1.3 ms statement).
-- - svc_search_analyze runs the search's analysis statement (store's ANALYZE, its text in search.ts, which a test
--   compares with this one) for the search's transaction, as the statement prepared by name did.
-- - svc_search_one answers a search of one word in one call outside a transaction: the project by slug or id,
--   whether the glossary expands the query (then no analysis: the caller searches in its transaction), and the
--   analysis. A function reads in its calling statement's snapshot, so statistics and postings agree as in the
--   transaction.
-- Both plan their statements once per connection: `SET plan_cache_mode` holds for the call alone. A statement's
-- custom plan for the analysis cost 0.8 ms to make; in a transaction the search set the mode for the rest of it, which
-- a statement on its own cannot do before it is planned. PL/pgSQL keeps its plans for the session, also on PGlite,
-- where no statement is prepared by name and the analysis was planned on every search.

CREATE FUNCTION svc_search_analyze(text[], uuid, text[], uuid[], integer, text[], boolean[], integer, integer) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  RETURN (SELECT to_json(a) FROM (with leaf as (
     select u.ord, coalesce(svc_query_terms(u.t), '{}') as lexemes
     from unnest($1::text[]) with ordinality as u(t, ord)
   ),
   term as (
     select t.term,
            coalesce((select df from search_terms s where s.project_id = $2::uuid and s.term = t.term), 0)
              + coalesce((select sum(docs) from search_deltas d where d.project_id = $2::uuid and t.term = any (d.terms)), 0) as df
     from (select distinct unnest(l.lexemes) as term from leaf l) t
   ),
   stats as (
     select coalesce((select docs from search_stats where project_id = $2::uuid), 0)
              + coalesce((select sum(docs) from search_deltas where project_id = $2::uuid), 0) as docs,
            coalesce((select total_len from search_stats where project_id = $2::uuid), 0)
              + coalesce((select sum(len) from search_deltas where project_id = $2::uuid), 0) as len
   ),
   one as (
     select t.term,
            case when $3::text[] is null and $4::uuid[] is null then greatest(8 * $8::int, 256) else 8 * $8::int end
              as most,
            greatest(2 * $8::int, 32) + ceil(greatest(t.df, 0) / 64.0)::int as want
     from term t
     where $8::int is not null and (select count(*) from term) = 1
   ),
   post as (
     (select s.item_id as id, s.impact::float8 as impact, s.tf::float8 as tf, s.dl, s.tf::float8 / (s.tf::float8 + 0.3::float8 + 0.8999999999999999::float8 / greatest(case when stats.docs > 0 then stats.len::float8 / stats.docs else 1 end, 1) * s.dl) as score
      from search_postings s, stats
      where $3::text[] is null and $4::uuid[] is null and s.project_id = $2::uuid and s.term = (select term from one)
      order by s.impact desc, s.item_id desc
      limit (select least(most, want) from one))
     union all
     (select s.item_id, s.impact::float8, s.tf::float8, s.dl, s.tf::float8 / (s.tf::float8 + 0.3::float8 + 0.8999999999999999::float8 / greatest(case when stats.docs > 0 then stats.len::float8 / stats.docs else 1 end, 1) * s.dl)
      from search_postings s
      cross join lateral (select i.updated_at, i.project_id, i.is_head, i.deleted_at, i.item_type, i.system_id, i.refreshed_at
     from items i where i.id = s.item_id offset 0) i
      cross join stats
      where ($3::text[] is not null or $4::uuid[] is not null) and s.project_id = $2::uuid and s.term = (select term from one)
        and i.project_id = $2::uuid and i.is_head and i.deleted_at is null and ($3::text[] is null or i.item_type = any($3::text[])) and ($4::uuid[] is null or i.system_id = any($4::uuid[])) and ($5::int is null or not (i.item_type = 'research' and i.refreshed_at < now() - make_interval(days => $5::int)))
      order by s.impact desc, s.item_id desc
      limit (select least(most, want) from one))
   ),
   best as (
     select p.id, p.impact, p.tf, p.dl, p.score, i.at, i.chain_id, i.item_type, i.title, left(i.body, $9::int) as body
     from (select * from post order by score desc, id) p
     cross join lateral (select floor(extract(epoch from i.updated_at) * 1000)::float8 as at, i.chain_id, i.title, i.body, i.project_id, i.is_head, i.deleted_at, i.item_type, i.system_id, i.refreshed_at
     from items i where i.id = p.id offset 0) i
     where i.project_id = $2::uuid and i.is_head and i.deleted_at is null and ($3::text[] is null or i.item_type = any($3::text[])) and ($4::uuid[] is null or i.system_id = any($4::uuid[])) and ($5::int is null or not (i.item_type = 'research' and i.refreshed_at < now() - make_interval(days => $5::int)))
     order by p.score desc, p.id
     limit $8::int
   ),
   first as (
     select * from best
     union all
     select p.id, p.impact, p.tf, p.dl, p.score, i.at, i.chain_id, i.item_type, i.title, left(i.body, $9::int) as body
     from post p
     cross join lateral (select floor(extract(epoch from i.updated_at) * 1000)::float8 as at, i.chain_id, i.title, i.body, i.project_id, i.is_head, i.deleted_at, i.item_type, i.system_id, i.refreshed_at
     from items i where i.id = p.id offset 0) i
     where (select count(*) from best) = $8::int
       and p.score >= (select min(score) from best) * (1 - 0.000004)
       and p.id not in (select id from best)
       and i.project_id = $2::uuid and i.is_head and i.deleted_at is null and ($3::text[] is null or i.item_type = any($3::text[])) and ($4::uuid[] is null or i.system_id = any($4::uuid[])) and ($5::int is null or not (i.item_type = 'research' and i.refreshed_at < now() - make_interval(days => $5::int)))
   )
   select (select json_agg(l.lexemes order by l.ord) from leaf l) as analyzed,
          (select json_agg((case
             when not x.phrase and strpos(x.t, '_') > 0 then svc_tsquery(x.t)
             when not x.phrase then plainto_tsquery('english', svc_search_text(x.t))
             when strpos(x.t, '_') > 0 then phraseto_tsquery('english', svc_search_text(x.t)) && svc_tsquery(x.t)
             else phraseto_tsquery('english', svc_search_text(x.t))
           end)::text order by x.ord)
           from unnest($6::text[], $7::boolean[]) with ordinality as x(t, phrase, ord)) as leaf_queries,
          stats.docs, stats.len,
          (select ref_avgdl from search_stats where project_id = $2::uuid) as ref,
          (select json_agg(json_build_array(
             t.term,
             t.df,
             (select impact from search_postings s where s.project_id = $2::uuid and s.term = t.term
               order by impact desc, item_id desc limit 1)::float8))
           from term t) as terms,
          (select least(most, want) from one) as first_n,
          (select count(*) from post)::int as first_read,
          (select json_build_array(p.impact, p.id) from post p order by p.impact, p.id limit 1) as first_last,
          (select json_agg(json_build_array(f.id, f.impact, f.tf, f.dl, f.at)) from first f) as first,
          (select json_agg(json_build_array(r.id, r.chain_id, r.item_type, r.title, r.body, r.at))
           from (select * from first f order by f.score desc, f.at desc, f.id limit $8::int - 1) r) as page
   from stats) a);
END
$fn$;

CREATE FUNCTION svc_search_one(ref_slug text, ref_id uuid, syn_terms text[], syn_per_term integer, a_texts text[], a_ttl integer, a_leaves text[], a_phrases boolean[], a_k integer, a_chars integer) RETURNS json
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
  p record;
BEGIN
  IF ref_slug IS NOT NULL THEN
    SELECT id, slug, name, settings, created_at INTO p FROM projects WHERE slug = ref_slug;
  ELSE
    SELECT id, slug, name, settings, created_at INTO p FROM projects WHERE id = ref_id;
  END IF;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF EXISTS (select x.key, x.synonym
   from (
     select d.key, d.synonym, row_number() over (partition by d.key order by d.synonym) as n
     from (
       select distinct t.normalized as key, s.term as synonym
       from glossary_terms t
       join glossary_terms s on s.group_id = t.group_id and s.status = 'accepted'
       where t.project_id = p.id and t.status = 'accepted' and t.normalized = any(syn_terms)
         and not exists (select 1 from glossary_rejections r where r.group_id = s.group_id and r.normalized = s.normalized)
     ) d
   ) x
   where x.n <= syn_per_term) THEN
    RETURN json_build_object('project', to_json(p), 'synonyms', true);
  END IF;
  RETURN json_build_object('project', to_json(p), 'synonyms', false,
    'analysis', svc_search_analyze(a_texts, p.id, NULL, NULL, a_ttl, a_leaves, a_phrases, a_k, a_chars));
END
$fn$;
