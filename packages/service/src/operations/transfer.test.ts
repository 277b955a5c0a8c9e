import { randomUUID } from 'node:crypto';
import { deferSearchIndex, rebuildSearchIndex } from '@svc/store';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestService, refusal, type TestService, testBackends } from '../testing/index.js';
import { ops } from '../catalog.js';


describe.each(testBackends())('export and import on $name', (backend) => {
  let svc: TestService;
  let file: string;

  const count = async (table: 'items' | 'projects' | 'links') =>
    Number((await svc.store.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
  const exportOf = async (project: string) => `${((await svc.call(ops.project_export, { project_id: project }, { source: 'cli' })) as { lines: string[] }).lines.join('\n')}\n`;

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    const { actorId, projectId } = await svc.seed('memory');
    const call = svc.as(actorId);
    // The bulk: 10,000 decisions, seeded in SQL, the search index built once at the end as an import does.
    await svc.store.db.transaction().execute(async (tx) => {
      await deferSearchIndex(tx);
      await sql`
        insert into items (id, chain_id, project_id, item_type, title, body, context, created_by)
        select g.id, g.id, ${projectId}::uuid, 'decision', 'Decision ' || g.n, 'Body of decision ' || g.n || ' about caching', '{"n": 1}'::jsonb, ${actorId}::uuid
        from (select gen_random_uuid() as id, n from generate_series(1, 10000) n) g`.execute(tx);
      await rebuildSearchIndex(tx, projectId);
    });
    // And a little of everything through the service.
    await call(ops.system_add, { project_id: 'memory', name: 'billing' });
    const a = (await call(ops.svc_item_upsert, { project_id: 'memory', title: 'Timeout 30s', body: 'Use timeout 30s.', system_id: 'billing' })) as { id: string };
    const a2 = (await call(ops.svc_item_upsert, { project_id: 'memory', item_id: a.id, body: 'Use timeout 45s. All writes must be audited.' })) as { id: string };
    await call(ops.svc_item_upsert, { project_id: 'memory', item_type: 'research', title: 'Study', source_url: 'https://example.test', links: [{ type: 'depends', target_id: a2.id }] });
    const unit = (await call(ops.svc_work_open, { project_id: 'memory', title: 'Unit' })) as { id: string };
    const task = (await call(ops.svc_task_add, { work_unit_id: unit.id, title: 'Task' })) as { id: string };
    await call(ops.svc_task_start, { task_id: task.id });
    await call(ops.svc_task_block, { task_id: task.id, reason: 'waiting' });
    await call(ops.svc_qa_add, { project_id: 'memory', title: 'Check', target_task_ids: [task.id], target_item_ids: [a.id] });
    await call(ops.svc_idea_add, { work_unit_id: unit.id, text: 'an idea' });
    const capture = (await call(ops.svc_capture_add, { text: 'captured text' })) as { id: string };
    await call(ops.svc_capture_promote, { capture_id: capture.id, project_id: 'memory', title: 'Promoted' });
    await call(ops.glossary_group_add, { project_id: 'memory', name: 'db' });
    await call(ops.glossary_term_add, { project_id: 'memory', group: 'db', term: 'postgres' });
    await call(ops.glossary_term_propose, { project_id: 'memory', group: 'db', term: 'pg' });
    await call(ops.svc_page_sync, { project_id: 'memory' });
    await call(ops.project_config_import, { project_id: 'memory', config: '[research]\nttl_days = 30\n' });
    file = await exportOf('memory');
  }, 300_000);
  afterAll(async () => {
    await svc.close();
  });

  it('writes a header naming format and schema, every row, and an end record', () => {
    const lines = file.trimEnd().split('\n');
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'svc-export', format_version: 1, schema: expect.stringMatching(/^\d{4}$/), project: 'memory' });
    expect(JSON.parse(lines.at(-1)!)).toEqual({ type: 'end', records: lines.length - 2 });
    const types = new Set(lines.slice(1, -1).map((l) => (JSON.parse(l) as { type: string }).type));
    for (const kind of ['project', 'actor', 'system', 'work_unit', 'item', 'link', 'history', 'glossary_group', 'glossary_term', 'capture', 'capture_promotion', 'idea', 'sync_job', 'audit']) {
      expect(types, kind).toContain(kind);
    }
    expect(lines.filter((l) => l.startsWith('{"type":"item"'))).toHaveLength(10_000 + 7);
  });

  it('round-trips byte for byte: export, import into an empty database, export again', async () => {
    await svc.store.reset();
    const result = (await svc.call(ops.project_import, { lines: file.split('\n') }, { source: 'cli' })) as { counts: Record<string, number> };
    expect(result.counts.item).toBe(10_007);
    expect(await exportOf('memory')).toBe(file);
    // The restored memory works: search, history and the settings came back.
    const hits = (await svc.call(ops.svc_item_search, { project_id: 'memory', query: 'audited' }, { source: 'cli' })) as { items: unknown[] };
    expect(hits.items).toHaveLength(1);
  }, 300_000);

  it('imports under a new slug with fresh ids, beside the original', async () => {
    const result = (await svc.call(ops.project_import, { lines: file.split('\n'), as_slug: 'memory-copy' }, { source: 'cli' })) as { project_id: string };
    const copy = await exportOf('memory-copy');
    expect(copy.split('\n').length).toBe(file.split('\n').length);
    const original = JSON.parse(file.split('\n')[1]!) as { id: string };
    expect(result.project_id).not.toBe(original.id);
    const hits = (await svc.call(ops.svc_item_search, { project_id: 'memory-copy', query: 'audited' }, { source: 'cli' })) as { items: unknown[] };
    expect(hits.items).toHaveLength(1);
    const again = await refusal(svc.call(ops.project_import, { lines: file.split('\n') }, { source: 'cli' }));
    expect(again.code).toBe('conflict');
  }, 300_000);

  it('refuses a truncated or hand-corrupted file with its line number and writes nothing', async () => {
    await svc.store.reset();
    const lines = file.trimEnd().split('\n');
    const truncated = `${lines.slice(0, 5000).join('\n')}\n`;
    expect((await refusal(svc.call(ops.project_import, { lines: truncated.split('\n') }, { source: 'cli' }))).message).toMatch(/^line 5001: .*truncated/);
    const cut = `${lines.slice(0, 5000).join('\n')}\n${lines[5000]!.slice(0, 20)}\n`;
    expect((await refusal(svc.call(ops.project_import, { lines: cut.split('\n') }, { source: 'cli' }))).message).toMatch(/^line 5001: not valid JSON/);
    const itemLine = lines.findIndex((l) => l.startsWith('{"type":"item"'));
    const corrupted = [...lines];
    corrupted[itemLine + 100] = corrupted[itemLine + 100]!.replace('"item_type":"decision"', '"item_type":"no_such_type"');
    const refused = await refusal(svc.call(ops.project_import, { lines: corrupted }, { source: 'cli' }));
    expect(refused.message).toMatch(new RegExp(`^line ${itemLine + 101}: field 'item_type' names item type no_such_type, which is neither built in nor defined in this file$`));
    const extra = [...lines];
    extra[3] = extra[3]!.replace('{"type":', '{"colour":"red","type":');
    expect((await refusal(svc.call(ops.project_import, { lines: extra }, { source: 'cli' }))).message).toMatch(/^line 4: unknown field 'colour'/);
    expect(await count('projects')).toBe(0);
    expect(await count('items')).toBe(0);
    expect(await count('links')).toBe(0);
  }, 300_000);
});

describe.each(testBackends())('import confines a crafted file to its own project on $name', (backend) => {
  let svc: TestService;
  /** The export of project 'mine', as lines without the final empty one. */
  let lines: string[];
  let mine: string;
  let myActor: string;
  let other: { projectId: string; actorId: string; itemId: string; taskId: string };

  const importing = (file: string[], as_slug?: string) => svc.call(ops.project_import, { lines: file, ...(as_slug ? { as_slug } : {}) }, { source: 'cli' });
  const snapshot = async () => {
    const out: Record<string, number> = {};
    for (const table of ['projects', 'items', 'links', 'items_history', 'audit_log', 'item_types', 'actors', 'capture_promotions'] as const) {
      out[table] = Number((await svc.store.db.selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    }
    return out;
  };
  /** The file with line `n` (1-based) of kind `type` changed by `edit`. */
  const lineOf = (type: string, where: (r: Record<string, unknown>) => boolean = () => true) =>
    lines.findIndex((l) => {
      const r = JSON.parse(l) as Record<string, unknown>;
      return r.type === type && where(r);
    }) + 1;
  const edited = (n: number, edit: (r: Record<string, unknown>) => void) => {
    const copy = [...lines];
    const r = JSON.parse(copy[n - 1] as string) as Record<string, unknown>;
    edit(r);
    copy[n - 1] = JSON.stringify(r);
    return copy;
  };
  /** Refused as invalid input naming the line and the field, with nothing written. */
  const refusedAt = async (file: string[], line: number, field: string, message: RegExp) => {
    const before = await snapshot();
    const error = await refusal(importing(file, 'crafted'));
    expect(error.code, error.message).toBe('invalid_input');
    expect(error.message).toMatch(new RegExp(`^line ${line}: `));
    expect(error.message).toMatch(message);
    expect(error.details).toMatchObject({ line, record_field: field });
    expect(await snapshot()).toEqual(before);
  };

  beforeAll(async () => {
    svc = await openTestService(backend);
    await svc.store.reset();
    const them = await svc.seed('theirs');
    const theirs = svc.as(them.actorId);
    const unitOfTheirs = (await theirs(ops.svc_work_open, { project_id: 'theirs', title: 'Their unit' })) as { id: string };
    const theirTask = (await theirs(ops.svc_task_add, { work_unit_id: unitOfTheirs.id, title: 'Their task' })) as { id: string };
    const theirItem = (await theirs(ops.svc_item_upsert, { project_id: 'theirs', title: 'Their secret', body: 'not yours' })) as { id: string };
    await theirs(ops.svc_item_upsert, { project_id: 'theirs', title: 'Their other', links: [{ type: 'depends', target_id: theirItem.id }] });
    other = { projectId: them.projectId, actorId: them.actorId, itemId: theirItem.id, taskId: theirTask.id };

    const me = await svc.seed('mine');
    mine = me.projectId;
    myActor = me.actorId;
    const call = svc.as(me.actorId);
    await call(ops.type_add, { key: 'note', schema: { type: 'object', properties: { n: { type: 'integer' } } } });
    const a = (await call(ops.svc_item_upsert, { project_id: 'mine', title: 'A', item_type: 'note', context: { n: 1 } })) as { id: string };
    const b = (await call(ops.svc_item_upsert, { project_id: 'mine', title: 'B', links: [{ type: 'depends', target_id: a.id }] })) as { id: string };
    // A link made and removed: its audit rows stay in the export while the link does not.
    await call(ops.link_add, { project_id: 'mine', from_id: a.id, type: 'conflicts', to_id: b.id });
    await call(ops.link_remove, { project_id: 'mine', from_id: a.id, type: 'conflicts', to_id: b.id });
    const unit = (await call(ops.svc_work_open, { project_id: 'mine', title: 'Unit' })) as { id: string };
    const task = (await call(ops.svc_task_add, { work_unit_id: unit.id, title: 'Task' })) as { id: string };
    await call(ops.svc_qa_add, { project_id: 'mine', title: 'Check', target_task_ids: [task.id] });
    const capture = (await call(ops.svc_capture_add, { text: 'captured' })) as { id: string };
    await call(ops.svc_capture_promote, { capture_id: capture.id, project_id: 'mine', title: 'Promoted' });
    const exported = (await svc.call(ops.project_export, { project_id: 'mine' }, { source: 'cli' })) as { lines: string[] };
    lines = exported.lines;
  }, 120_000);
  afterAll(async () => {
    await svc.close();
  });

  it('imports the honest file beside the original', async () => {
    const result = (await importing(lines, 'honest')) as { counts: Record<string, number> };
    expect(result.counts.item).toBeGreaterThan(4);
  });

  it('redacts, as redaction does, the item a file promoted from a redacted capture (an older export, or a crafted one)', async () => {
    // Ends in a digit, so its lexeme is itself (never stemmed): the search_terms check below can fail.
    const marker = `zqxmarker${Date.now().toString(36)}7`;
    const promotion = JSON.parse(lines[lineOf('capture_promotion') - 1] as string) as { capture_id: string; item_id: string };
    // The capture as redaction leaves it; its item as an older svc left it (keys and numbers kept), or worse.
    const file = edited(lineOf('capture', (r) => r.id === promotion.capture_id), (r) => {
      Object.assign(r, { text: '[redacted]', summary: '[redacted]', sensitivity_hint: null, signals: {}, review_state: 'redacted', redacted_at: new Date().toISOString() });
    });
    const itemLine = lineOf('item', (r) => r.id === promotion.item_id);
    file[itemLine - 1] = JSON.stringify({
      ...(JSON.parse(file[itemLine - 1] as string) as object),
      title: `Promoted ${marker}`,
      context: { [marker]: 4711, deep: { [marker]: [true] } },
    });
    const result = (await importing(file, 'redacted-copy')) as { project_id: string };
    const exported = ((await svc.call(ops.project_export, { project_id: result.project_id }, { source: 'cli' })) as { lines: string[] }).lines;
    expect(exported.join('\n')).not.toContain(marker);
    const items = exported.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.type === 'item' && r.title === '[redacted]');
    expect(items.map((r) => [r.body, r.context])).toEqual([['[redacted]', {}]]);
    const hits = (await svc.call(ops.svc_item_search, { project_id: 'redacted-copy', query: marker }, { source: 'cli' })) as { items: unknown[] };
    expect(hits.items).toEqual([]);
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from search_terms where term = ${marker}`.execute(svc.store.db);
    expect(rows[0]?.n).toBe(0);
  });

  it('keeps what was written after a redaction: only the versions up to it are redacted again on import', async () => {
    const call = svc.as(myActor);
    const secret = `zqxpin${Date.now().toString(36)}`;
    const capture = (await call(ops.svc_capture_add, { text: `the vault pin is ${secret}` })) as { id: string };
    const promoted = (await call(ops.svc_capture_promote, { capture_id: capture.id, project_id: 'mine', title: `Vault pin ${secret}` })) as { item_id?: string; id?: string };
    const itemId = (promoted.item_id ?? promoted.id) as string;
    await call(ops.svc_capture_redact, { capture_id: capture.id });
    await call(ops.svc_item_upsert, { project_id: 'mine', item_id: itemId, title: 'Rewritten after redaction', body: 'Rotate the vault monthly', context: { owner: 'ops' } });
    const exported = ((await svc.call(ops.project_export, { project_id: 'mine' }, { source: 'cli' })) as { lines: string[] }).lines;
    const result = (await importing(exported, 'after-redaction')) as { project_id: string };
    const copy = ((await svc.call(ops.project_export, { project_id: result.project_id }, { source: 'cli' })) as { lines: string[] }).lines;
    const chain = copy
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((r) => r.type === 'item' && (r.title === 'Rewritten after redaction' || r.title === '[redacted]'))
      .map((r) => [r.title, r.body, r.context]);
    expect(chain).toContainEqual(['Rewritten after redaction', 'Rotate the vault monthly', { owner: 'ops' }]);
    expect(copy.join('\n')).not.toContain(secret);
    const hits = (await svc.call(ops.svc_item_search, { project_id: 'after-redaction', query: 'rewritten' }, { source: 'cli' })) as { items: unknown[] };
    expect(hits.items).toHaveLength(1);
  });

  it("refuses a record carrying another project's id", async () => {
    const n = lineOf('item');
    await refusedAt(edited(n, (r) => { r.project_id = other.projectId; }), n, 'project_id', /field 'project_id' is .*, not the imported project/);
    const s = lineOf('system');
    if (s > 0) await refusedAt(edited(s, (r) => { r.project_id = other.projectId; }), s, 'project_id', /not the imported project/);
  });

  it('takes an actor of the file whose email is registered here under another id for that actor', async () => {
    // The same person, registered on the machine that exported under another id.
    const elsewhere = randomUUID();
    const file = lines.map((l) => l.replaceAll(myActor, elsewhere));
    expect(file.join('\n')).not.toContain(myActor);
    const actorsBefore = (await snapshot()).actors;
    const result = (await importing(file, 'same-person')) as { project_id: string; actors_here?: string[] };
    expect((await snapshot()).actors).toBe(actorsBefore);
    // The answer names whom the file's records are attributed to: a file can carry anyone's email (an attacker).
    const { email } = await svc.store.db.selectFrom('actors').select('email').where('id', '=', myActor).executeTakeFirstOrThrow();
    expect(result.actors_here).toEqual([email.toLowerCase()]);
    const creators = await svc.store.db.selectFrom('items').select('created_by').distinct().where('project_id', '=', result.project_id).execute();
    expect(creators).toEqual([{ created_by: myActor }]);
    // The import's own audit row says whom it took for whom.
    const audit = await svc.store.db.selectFrom('audit_log').select('details').where('target_id', '=', result.project_id).where('project_id', 'is', null).executeTakeFirstOrThrow();
    expect(audit.details).toMatchObject({ actors_by_email: { [elsewhere]: myActor } });
    const exported = (await svc.call(ops.project_export, { project_id: 'same-person' }, { source: 'cli' })) as { lines: string[] };
    expect(exported.lines.join('\n')).not.toContain(elsewhere);
  });

  it('refuses audit rows forged into another project or naming an actor the file does not carry', async () => {
    const n = lineOf('audit');
    await refusedAt(edited(n, (r) => { r.project_id = other.projectId; }), n, 'project_id', /not the imported project/);
    await refusedAt(edited(n, (r) => { r.actor_id = other.actorId; }), n, 'actor_id', /field 'actor_id' names actor .*, which is not in this file/);
  });

  it("refuses an audit row whose target_id names another project's record, naming the line and target_id", async () => {
    const n = lineOf('audit', (r) => r.target_id !== null && r.target_kind !== 'link');
    await refusedAt(edited(n, (r) => { r.target_id = other.itemId; }), n, 'target_id', /field 'target_id' names .*, which is not a record of this file/);
    await refusedAt(edited(n, (r) => { r.target_id = other.projectId; }), n, 'target_id', /not a record of this file/);
  });

  it('imports the audit rows of a link removed before the export, but not one naming a live link of another project', async () => {
    const removed = lineOf('audit', (r) => r.target_kind === 'link' && !lines.some((l) => l.includes('"type":"link"') && l.includes(`"id":"${String(r.target_id)}"`)));
    expect(removed).toBeGreaterThan(0);
    const theirLink = await svc.store.db.selectFrom('links').select('id').where('project_id', '=', other.projectId).executeTakeFirstOrThrow();
    await refusedAt(edited(removed, (r) => { r.target_id = theirLink.id; }), removed, 'target_id', /not a record of this file/);
    expect(await importing(lines, 'with-removed-link')).toMatchObject({ slug: 'with-removed-link' });
  });

  it('refuses a __proto__ key inside a JSON value, as the input gate does', async () => {
    const n = lineOf('item', (r) => r.item_type === 'knowledge' || r.item_type === 'decision');
    // Written as text: an object literal or JSON.stringify would not carry an own __proto__ key.
    const file = edited(n, (r) => { r.context = 'PROTO'; });
    file[n - 1] = (file[n - 1] as string).replace('"PROTO"', '{"__proto__":{"x":1},"k":1}');
    await refusedAt(file, n, 'context', /field 'context' of a item record holds a '__proto__' key/);
  });

  it('refuses history, promotions, links and QA targets that point at another project', async () => {
    const h = lineOf('history');
    await refusedAt(edited(h, (r) => { r.item_id = other.itemId; }), h, 'item_id', /names item .* not in this file/);
    const p = lineOf('capture_promotion');
    await refusedAt(edited(p, (r) => { r.item_id = other.itemId; }), p, 'item_id', /names item .* not in this file/);
    const l = lineOf('link');
    await refusedAt(edited(l, (r) => { r.to_chain_id = other.itemId; }), l, 'to_chain_id', /names item .* not in this file/);
    const q = lineOf('item', (r) => r.item_type === 'qa_check');
    await refusedAt(edited(q, (r) => { (r.context as { target_task_ids: string[] }).target_task_ids = [other.taskId]; }), q, 'context', /target_task_ids' names item .* not in this file/);
    const t = lineOf('item', (r) => r.item_type === 'task');
    await refusedAt(edited(t, (r) => { r.work_unit_id = '00000000-0000-4000-8000-000000000000'; }), t, 'work_unit_id', /names work unit .* not in this file/);
  });

  it('compiles item-type schemas as type add does and refuses system types', async () => {
    const n = lineOf('item_type');
    await refusedAt(edited(n, (r) => { r.schema = { type: 'object', properties: 5 }; }), n, 'schema', /field 'schema' of item type 'note': .*not a valid JSON Schema/);
    await refusedAt(edited(n, (r) => { r.schema = { type: 'string' }; }), n, 'schema', /must be 'object'/);
    await refusedAt(edited(n, (r) => { r.key = 'decision'; }), n, 'owner', /system type/);
    // An item whose context breaks its type's schema is refused as if written by hand.
    const i = lineOf('item', (r) => r.item_type === 'note');
    await refusedAt(edited(i, (r) => { r.context = { n: 'one' }; }), i, 'context', /context\.n/);
  });

  it('validates the settings as project config import does', async () => {
    const n = lineOf('project');
    await refusedAt(edited(n, (r) => { r.settings = { research: { ttl_days: 99_999_999_999 } }; }), n, 'settings', /field 'settings': research\.ttl_days: /);
    await refusedAt(edited(n, (r) => { r.settings = { colour: 'red' }; }), n, 'settings', /field 'settings': /);
  });

  it('refuses wrong types, huge numbers, missing fields, unknown kinds and duplicate ids by line, never as an internal error', async () => {
    const i = lineOf('item');
    await refusedAt(edited(i, (r) => { r.version = '1'; }), i, 'version', /field 'version' of a item record must be a whole number/);
    await refusedAt(edited(i, (r) => { r.version = 1e300; }), i, 'version', /must be a whole number/);
    await refusedAt(edited(i, (r) => { r.version = 0; }), i, 'version', /must be 1 or more/);
    const h = lineOf('history', (r) => r.version !== null);
    await refusedAt(edited(h, (r) => { r.version = -1; }), h, 'version', /field 'version' of a history record must be 1 or more/);
    await refusedAt(edited(i, (r) => { r.title = 7; }), i, 'title', /must be a string/);
    await refusedAt(edited(i, (r) => { r.created_at = 'yesterday'; }), i, 'created_at', /ISO 8601/);
    await refusedAt(edited(i, (r) => { r.body = 'nul \u0000 byte'; }), i, 'body', /NUL/);
    await refusedAt(edited(i, (r) => { r.context = JSON.parse(`${'{"a":'.repeat(100)}1${'}'.repeat(100)}`); }), i, 'context', /deeper than 64/);
    await refusedAt(edited(i, (r) => { delete r.chain_id; }), i, 'chain_id', /missing field 'chain_id'/);
    await refusedAt(edited(i, (r) => { r.type = 'secret'; }), i, 'type', /unknown record type "secret"/);
    const copy = [...lines];
    copy.splice(i, 0, lines[i - 1] as string);
    const end = JSON.parse(copy.at(-1) as string) as { records: number };
    copy[copy.length - 1] = JSON.stringify({ type: 'end', records: end.records + 1 });
    await refusedAt(copy, i + 1, 'id', /a second item with id .* \(the first is on line \d+\)/);
    const header = [...lines];
    header[0] = 'null';
    expect((await refusal(importing(header))).message).toMatch(/^line 1: not a svc export/);
    header[0] = JSON.stringify({ ...(JSON.parse(lines[0] as string) as object), format_version: '1' });
    expect((await refusal(importing(header))).message).toBe("line 1: format_version must be the number 1, not \"1\"");
  });

  it('refuses ids that exist in another project instead of overwriting or attaching to them', async () => {
    // Keeping ids, under a slug and project id that are free: every other id is mine's already.
    const fresh = '11111111-1111-4111-8111-111111111111';
    const file = lines.map((l) => l.replaceAll(mine, fresh).replace('"slug":"mine"', '"slug":"mine-again"'));
    const before = await snapshot();
    const error = await refusal(importing(file));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toMatch(/^line \d+: a \w+ with id .* already exists in this database \(outside this project\): import with --as NEW_SLUG/);
    expect(await snapshot()).toEqual(before);
    const again = await refusal(importing(lines));
    expect(again.message).toBe("project slug 'mine' already exists: import with --as NEW_SLUG (as_slug) to import it beside, with fresh ids");
    const taken = await refusal(importing(lines, 'theirs'));
    expect(taken.message).toBe("project slug 'theirs' already exists: choose another slug for --as");
  });
});
