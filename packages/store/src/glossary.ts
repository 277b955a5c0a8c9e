import { type GlossaryEntryState, type GlossaryTermStatus, type IdRef, normalizeTerm, notFound } from '@svc/domain';
import type { Kysely, Transaction } from 'kysely';
import { idMatches, iso, isoOrNull, onlyMatch } from './refs.js';
import type { Database } from './schema.js';

export interface GlossaryGroup {
  id: string;
  project_id: string;
  name: string;
  created_at: string;
}

export interface GlossaryTerm {
  id: string;
  project_id: string;
  group_id: string;
  group_name: string;
  term: string;
  status: GlossaryTermStatus;
  created_by: string | null;
  created_at: string;
  decided_at: string | null;
}

export async function insertGroup(db: Transaction<Database>, projectId: string, name: string): Promise<GlossaryGroup> {
  const row = await db.insertInto('glossary_groups').values({ project_id: projectId, name }).returningAll().executeTakeFirstOrThrow();
  return { ...row, created_at: iso(row.created_at) };
}

export async function findGroupByName(db: Kysely<Database>, projectId: string, name: string, field = 'group'): Promise<GlossaryGroup> {
  const row = await db
    .selectFrom('glossary_groups')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('name', '=', name)
    .executeTakeFirst();
  if (!row) throw notFound('glossary group', name, field);
  return { ...row, created_at: iso(row.created_at) };
}

function termQuery(db: Kysely<Database>) {
  return db
    .selectFrom('glossary_terms as t')
    .innerJoin('glossary_groups as g', 'g.id', 't.group_id')
    .select([
      't.id',
      't.project_id',
      't.group_id',
      'g.name as group_name',
      't.term',
      't.status',
      't.created_by',
      't.created_at',
      't.decided_at',
    ]);
}

type TermRow = Awaited<ReturnType<ReturnType<typeof termQuery>['executeTakeFirstOrThrow']>>;

function toTerm(row: TermRow): GlossaryTerm {
  return { ...row, created_at: iso(row.created_at), decided_at: isoOrNull(row.decided_at) };
}

/** Whether the group rejected this term before (its normalized form): the state a new entry starts from. */
export async function entryState(db: Kysely<Database>, group: GlossaryGroup, term: string): Promise<GlossaryEntryState> {
  const rejected = await db
    .selectFrom('glossary_rejections')
    .select('id')
    .where('group_id', '=', group.id)
    .where('normalized', '=', normalizeTerm(term))
    .executeTakeFirst();
  return rejected ? 'rejected' : 'absent';
}

/** Add a term to a group, in the status domain's glossaryEntryTransition gave it. */
export async function insertTerm(
  db: Transaction<Database>,
  group: GlossaryGroup,
  term: string,
  status: GlossaryTermStatus,
  createdBy: string | null,
  from: GlossaryEntryState,
): Promise<GlossaryTerm> {
  const normalized = normalizeTerm(term);
  // A term added after its rejection overrides it (domain GLOSSARY_ENTRY_TABLE); the rejection goes. Only
  // then: a proposal made from `absent` must not erase a rejection another transaction committed meanwhile.
  if (from === 'rejected') await db.deleteFrom('glossary_rejections').where('group_id', '=', group.id).where('normalized', '=', normalized).execute();
  const row = await db
    .insertInto('glossary_terms')
    .values({
      project_id: group.project_id,
      group_id: group.id,
      term: term.trim().replace(/\s+/g, ' '),
      normalized,
      status,
      created_by: createdBy,
      decided_at: status === 'accepted' ? new Date() : null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return findTerm(db, group.project_id, row.id);
}

async function findTerm(db: Kysely<Database>, projectId: string, id: string): Promise<GlossaryTerm> {
  const row = await termQuery(db).where('t.project_id', '=', projectId).where('t.id', '=', id).executeTakeFirst();
  if (!row) throw notFound('glossary term', id);
  return toTerm(row);
}

export async function resolveTerm(db: Kysely<Database>, projectId: string, ref: IdRef): Promise<GlossaryTerm> {
  const rows = await termQuery(db).where('t.project_id', '=', projectId).where(idMatches('t.id', ref)).limit(10).execute();
  return toTerm(onlyMatch(rows, 'glossary term', ref, (r) => ({ id: r.id, label: r.term })));
}

export async function acceptTerm(db: Transaction<Database>, term: GlossaryTerm): Promise<GlossaryTerm> {
  await db.updateTable('glossary_terms').set({ status: 'accepted', decided_at: new Date() }).where('id', '=', term.id).execute();
  return findTerm(db, term.project_id, term.id);
}

/** Reject a proposed term: it leaves the group and is remembered, so it is never proposed or expanded again. */
export async function rejectTerm(db: Transaction<Database>, term: GlossaryTerm, reason: string, rejectedBy: string | null): Promise<void> {
  await db.deleteFrom('glossary_terms').where('id', '=', term.id).execute();
  await db
    .insertInto('glossary_rejections')
    .values({
      project_id: term.project_id,
      group_id: term.group_id,
      term: term.term,
      normalized: normalizeTerm(term.term),
      reason,
      rejected_by: rejectedBy,
    })
    .execute();
}

/** The review queue: proposed terms, oldest first; `limit + 1` read so callers can tell if it was cut. */
export async function reviewQueue(db: Kysely<Database>, projectId: string, limit: number): Promise<GlossaryTerm[]> {
  const rows = await termQuery(db)
    .where('t.project_id', '=', projectId)
    .where('t.status', '=', 'proposed')
    .orderBy('t.created_at')
    .orderBy('t.id')
    .limit(limit + 1)
    .execute();
  return rows.map(toTerm);
}

/** A project's glossary groups by name; `limit + 1` read so callers can tell if it was cut. */
export async function listGroups(db: Kysely<Database>, projectId: string, limit: number): Promise<GlossaryGroup[]> {
  const rows = await db
    .selectFrom('glossary_groups')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('name')
    .orderBy('id')
    .limit(limit + 1)
    .execute();
  return rows.map((row) => ({ ...row, created_at: iso(row.created_at) }));
}

/** The accepted and proposed terms of these groups, alphabetically (rejected terms are no longer terms). */
export async function termsOfGroups(db: Kysely<Database>, groupIds: string[]): Promise<GlossaryTerm[]> {
  if (groupIds.length === 0) return [];
  const rows = await termQuery(db).where('t.group_id', 'in', groupIds).orderBy('t.normalized').orderBy('t.id').execute();
  return rows.map(toTerm);
}
