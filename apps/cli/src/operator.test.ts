import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AnyOperation, type InputOf, loadConfig, ops, openService } from '@svc/service';
import { createEmptyPostgresDatabase } from '@svc/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Env, svc, svcEnv } from './testing/svc-process.js';

describe.skipIf(!process.env.SVC_TEST_DATABASE_URL)('operator commands through the real binary', () => {
  const dbs: { url: string; drop(): Promise<void> }[] = [];
  let env: Env;
  const dir = mkdtempSync(join(tmpdir(), 'svc-ops-'));

  beforeAll(async () => {
    const db = (await createEmptyPostgresDatabase())!;
    dbs.push(db);
    env = svcEnv({ SVC_DATABASE_URL: db.url });
    expect((await svc(['migrate'], env)).code).toBe(0);
  });
  afterAll(async () => {
    for (const db of dbs) await db.drop();
  });

  it('project show and the TOML configuration: import, export, and a clear error naming a bad key', async () => {
    expect((await svc(['project', 'create', 'cfg', '--name', 'Config demo'], env)).code).toBe(0);
    const config = join(dir, 'cfg.toml');
    writeFileSync(config, '[research]\nttl_days = 30\n\n[checks]\ndisabled_rules = ["empty-decision"]\n');
    expect((await svc(['project', 'config', 'import', 'cfg', config], env)).code).toBe(0);
    const exported = await svc(['project', 'config', 'export', 'cfg'], env);
    expect(exported.stdout).toContain('ttl_days = 30');
    expect(exported.stdout).toContain('disabled_rules = [ "empty-decision" ]');
    const shown = JSON.parse((await svc(['project', 'show', 'cfg', '--json'], env)).stdout) as { name: string; settings: { research: { ttl_days: number } } };
    expect(shown).toMatchObject({ name: 'Config demo', settings: { research: { ttl_days: 30 } } });
    writeFileSync(config, '[research]\nttl_days = "soon"\n');
    const bad = await svc(['project', 'config', 'import', 'cfg', config], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/invalid_input: research\.ttl_days: /);
    const badJson = await svc(['project', 'config', 'import', 'cfg', config, '--json'], env);
    expect(JSON.parse(badJson.stderr)).toMatchObject({ error: { code: 'invalid_input', details: { field: 'research.ttl_days' } } });
    writeFileSync(config, '[research\nttl_days = 1');
    expect((await svc(['project', 'config', 'import', 'cfg', config], env)).stderr).toMatch(/not valid TOML \(line 1/);
  }, 180_000);

  it('item add and item edit record and revise an item from the terminal; --body and --body-file together are refused', async () => {
    expect((await svc(['project', 'create', 'notes'], env)).code).toBe(0);
    const body = join(dir, 'body.md');
    writeFileSync(body, 'One primary, two replicas.\n\nBackups run nightly.\n');
    const added = await svc(['item', 'add', 'notes', 'Use PostgreSQL for billing', '--body-file', body, '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    const { id } = JSON.parse(added.stdout) as { id: string };
    const policy = JSON.parse((await svc(['item', 'add', 'notes', 'Keep invoices seven years', '--type', 'policy', '--json'], env)).stdout) as { id: string };
    const edited = await svc(['item', 'edit', id.slice(0, 8), '--project', 'notes', '--body', 'One primary, three replicas.', '--json'], env);
    expect(edited.code, edited.stderr).toBe(0);
    const v2 = JSON.parse(edited.stdout) as { id: string; version: number };
    expect(v2.version).toBe(2);
    const shown = JSON.parse((await svc(['item', 'show', v2.id, '--json'], env)).stdout) as { item: { title: string; body: string; item_type: string } };
    expect(shown.item).toMatchObject({ title: 'Use PostgreSQL for billing', body: 'One primary, three replicas.', item_type: 'decision' });
    expect(JSON.parse((await svc(['item', 'show', policy.id, '--json'], env)).stdout)).toMatchObject({ item: { item_type: 'policy' } });
    const both = await svc(['item', 'add', 'notes', 'Both', '--body', 'x', '--body-file', body], env);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/invalid_input: --body and --body-file: give one of them/);
    // Bytes that are not UTF-8 are refused, naming the line, not stored as U+FFFD (an attacker, 2026-11-27).
    const latin1 = join(dir, 'latin1.md');
    writeFileSync(latin1, Buffer.from([0x6f, 0x6b, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a]));
    const garbled = await svc(['item', 'add', 'notes', 'Garbled', '--body-file', latin1], env);
    expect({ code: garbled.code, stdout: garbled.stdout }).toEqual({ code: 1, stdout: '' });
    expect(garbled.stderr).toBe(`svc: invalid_input: --body-file: line 2 of ${latin1} is not valid UTF-8; svc stores text as written, so save the file as UTF-8\n`);
    const stale = await svc(['item', 'edit', id, '--project', 'notes', '--title', 'Late'], env);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/conflict/);
  }, 180_000);

  it('prints stored control characters as pictures, never as escape sequences a terminal would obey; --json as JSON', async () => {
    expect((await svc(['project', 'create', 'esc'], env)).code).toBe(0);
    const title = 'escttl \u001b[8mHIDDEN\u001b[0m \u001b]52;c;cHduZWQ=\u0007 visible\u009b31m';
    const added = await svc(['item', 'add', 'esc', title, '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    for (const args of [['search', 'esc', 'escttl'], ['brief', 'esc'], ['item', 'show', (JSON.parse(added.stdout) as { id: string }).id]]) {
      const run = await svc(args, env);
      expect(run.code, run.stderr).toBe(0);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters
      expect(run.stdout, args.join(' ')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      expect(run.stdout, args.join(' ')).toContain('\u241b');
      expect(run.stdout, args.join(' ')).toContain('\u2407');
      if (args[0] !== 'brief') expect(run.stdout, args.join(' ')).toContain('escttl \u241b[8mHIDDEN\u241b[0m \u241b]52;c;cHduZWQ=\u2407 visible\ufffd31m');
    }
    const json = await svc(['search', 'esc', 'escttl', '--json'], env);
    expect((JSON.parse(json.stdout) as { items: { title: string }[] }).items[0]?.title).toBe(title);
  }, 180_000);

  const groupId = async (project: string) => {
    const listed = JSON.parse((await svc(['glossary', 'list', project, '--json'], env)).stdout) as { groups: { id: string }[] };
    return (listed.groups[0] as { id: string }).id;
  };

  it('glossary, check, research sweep and work reopen', async () => {
    expect((await svc(['project', 'create', 'ops'], env)).code).toBe(0);
    expect((await svc(['glossary', 'group', 'add', 'ops', 'orchestration'], env)).code).toBe(0);
    expect((await svc(['glossary', 'term', 'add', 'ops', 'orchestration', 'k8s'], env)).code).toBe(0);
    const proposed = JSON.parse((await svc(['glossary', 'propose', 'ops', 'orchestration', 'kube', '--json'], env)).stdout) as { id: string };
    const other = JSON.parse((await svc(['glossary', 'propose', 'ops', 'orchestration', 'cluster', '--json'], env)).stdout) as { id: string };
    expect((await svc(['glossary', 'queue', 'ops'], env)).stdout).toContain('kube');
    expect((await svc(['glossary', 'list', 'ops'], env)).stdout.trim()).toBe(
      [
        `orchestration  (${(await groupId('ops')).slice(0, 8)})`,
        '  accepted: k8s',
        `  proposed: cluster (${other.id.slice(0, 8)}), kube (${proposed.id.slice(0, 8)})`,
      ].join('\n'),
    );
    expect((await svc(['glossary', 'accept', 'ops', proposed.id.slice(0, 8)], env)).code).toBe(0);
    expect((await svc(['glossary', 'reject', 'ops', other.id, '--reason', 'too broad'], env)).code).toBe(0);
    expect((await svc(['glossary', 'queue', 'ops'], env)).stdout.trim()).toBe('(no proposed terms)');
    const listed = JSON.parse((await svc(['glossary', 'list', 'ops', '--json'], env)).stdout) as {
      groups: { name: string; accepted: { term: string }[]; proposed: unknown[] }[];
      truncated: boolean;
    };
    expect(listed).toMatchObject({ groups: [{ name: 'orchestration', accepted: [{ term: 'k8s' }, { term: 'kube' }], proposed: [] }], truncated: false });
    expect((await svc(['project', 'create', 'bare'], env)).code).toBe(0);
    expect((await svc(['glossary', 'list', 'bare'], env)).stdout.trim()).toBe('(no glossary groups)');
    expect((await svc(['glossary', 'list', 'nope'], env)).code).toBe(1);

    const check = await svc(['check', 'ops'], env);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/^# Checks: ops/);
    const json = JSON.parse((await svc(['check', 'ops', '--rule', 'dependency-cycle', '--json'], env)).stdout) as { ran: string[] };
    expect(json.ran).toEqual(['dependency-cycle']);
    expect((await svc(['check', 'ops', '--rule', 'nope'], env)).code).toBe(1);

    const sweep = await svc(['research', 'sweep', 'ops', '--json'], env);
    expect(JSON.parse(sweep.stdout)).toMatchObject({ expired: [], soft_deleted: false, ttl_days: 90 });

    const reopen = await svc(['work', 'reopen', 'ffffffff'], env);
    expect(reopen.code).toBe(1);
    expect(reopen.stderr).toContain('not_found');
    // The web view's empty work board points here.
    const opened = await svc(['work', 'open', 'ops', 'Move billing to the new queue', '--description', 'before the audit', '--json'], env);
    expect(opened.code, opened.stderr).toBe(0);
    const unit = JSON.parse(opened.stdout) as { id: string; status: string };
    expect(unit.status).toBe('open');
    expect((await svc(['work', 'reopen', unit.id], env)).stderr).not.toContain('not_found');
  }, 180_000);

  it('export → import into a fresh database → export gives the same bytes, captures and the inbox too; a truncated file fails with its line and writes nothing', async () => {
    expect((await svc(['project', 'create', 'carry'], env)).code).toBe(0);
    expect((await svc(['system', 'add', 'carry', 'api'], env)).code).toBe(0);
    // An item signed by an actor: the file carries that actor's record (and email).
    const carrier = JSON.parse((await svc(['actor', 'add', '--email', 'carrier@example.test', '--name', 'Carrier', '--json'], env)).stdout) as { id: string };
    expect((await svc(['item', 'add', 'carry', 'Signed by the carrier', '--actor', carrier.id], env)).code).toBe(0);
    // Captures through the service in this process (the CLI has no capture commands): one filed under carry,
    // one promoted into it from the inbox and redacted, and the inbox's own, one of them redacted.
    const service = await openService(loadConfig(env));
    try {
      const call = <Op extends AnyOperation>(op: Op, input: InputOf<Op>) => service.call(op, input, { source: 'cli' });
      await call(ops.svc_capture_add, { text: 'filed under carry', project_id: 'carry' });
      const promoted = await call(ops.svc_capture_add, { text: 'carry swordfish' });
      await call(ops.svc_capture_promote, { capture_id: promoted.id, project_id: 'carry', title: 'Promoted' });
      await call(ops.svc_capture_redact, { capture_id: promoted.id });
      await call(ops.svc_capture_add, { text: 'left in the inbox' });
      const secret = await call(ops.svc_capture_add, { text: 'inbox swordfish' });
      await call(ops.svc_capture_redact, { capture_id: secret.id });
    } finally {
      await service.close();
    }
    const first = join(dir, 'carry.jsonl');
    const wrote = await svc(['export', 'carry', '--out', first, '--json'], env);
    expect(wrote.code).toBe(0);
    expect(JSON.parse(wrote.stdout)).toMatchObject({ file: first });
    const streamed = await svc(['export', 'carry'], env);
    expect(streamed.stdout).toBe(readFileSync(first, 'utf8'));

    const fresh = (await createEmptyPostgresDatabase())!;
    dbs.push(fresh);
    const freshEnv = { ...env, SVC_DATABASE_URL: fresh.url };
    expect((await svc(['migrate'], freshEnv)).code).toBe(0);
    const lines = readFileSync(first, 'utf8').trimEnd().split('\n');
    const truncated = join(dir, 'truncated.jsonl');
    writeFileSync(truncated, `${lines.slice(0, -1).join('\n')}\n`);
    const refused = await svc(['import', truncated], freshEnv);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`invalid_input: line ${lines.length}: .*truncated`));
    expect(JSON.parse((await svc(['project', 'list', '--json'], freshEnv)).stdout).projects).toEqual([]);

    const imported = await svc(['import', first], freshEnv);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(/^imported carry: .*2 captures, 1 capture_promotion\b/);
    expect(imported.stdout).not.toContain('attributed');
    expect((await svc(['export', 'carry'], freshEnv)).stdout).toBe(readFileSync(first, 'utf8'));
    expect(readFileSync(first, 'utf8')).not.toContain('swordfish');

    // The shared inbox: written by --inbox, restored by import, the same bytes again; redacted stays masked.
    const inbox = join(dir, 'inbox.jsonl');
    const wroteInbox = await svc(['export', '--inbox', '--out', inbox, '--json'], env);
    expect(wroteInbox.code).toBe(0);
    expect(JSON.parse(wroteInbox.stdout)).toMatchObject({ counts: { capture: 2, actor: 0 } });
    const inboxText = readFileSync(inbox, 'utf8');
    expect(inboxText).toContain('left in the inbox');
    expect(inboxText).not.toContain('swordfish');
    expect(inboxText).not.toContain('filed under carry');
    const restored = await svc(['import', inbox], freshEnv);
    expect(restored.code).toBe(0);
    expect(restored.stdout.trim()).toBe('imported the shared inbox: 2 captures');
    expect((await svc(['export', '--inbox'], freshEnv)).stdout).toBe(inboxText);
    const again = await svc(['import', inbox], freshEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/conflict: line \d+: a capture with id .* already exists in this database/);
    expect((await svc(['export', 'carry', '--inbox'], env)).code).toBe(2);
    expect((await svc(['export'], env)).code).toBe(2);

    // Imported again as a copy, the file's actors are actors here: the answer says to whom its records are now
    // attributed, as a file may carry anyone's email (an attacker, 2026-11-28).
    const emails = lines.map((l) => JSON.parse(l) as { type?: string; email?: string }).filter((r) => r.type === 'actor').map((r) => String(r.email).toLowerCase());
    expect(emails).toContain('carrier@example.test');
    const copy = await svc(['import', first, '--as', 'carry-copy'], freshEnv);
    expect(copy.code).toBe(0);
    expect(copy.stdout).toContain(`\nattributed to actors already here, matched by email: ${emails.sort().join(', ')}`);
    expect(JSON.parse((await svc(['import', first, '--as', 'carry-copy-2', '--json'], freshEnv)).stdout)).toMatchObject({ actors_here: emails });
  }, 180_000);

  it('import and config import refuse /dev/zero at their size caps, and a crafted file by line and field in plain words', async () => {
    const zero = await svc(['import', '/dev/zero'], env);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toMatch(/payload_too_large: <file>: line 1 of \/dev\/zero is longer than 2 MiB/);
    expect((await svc(['project', 'create', 'src'], env)).code).toBe(0);
    const config = await svc(['project', 'config', 'import', 'src', '/dev/zero'], env);
    expect(config.code).toBe(1);
    expect(config.stderr).toMatch(/payload_too_large: <file>: \/dev\/zero is larger than 1 MiB/);

    expect((await svc(['system', 'add', 'src', 'api'], env)).code).toBe(0);
    const other = JSON.parse((await svc(['project', 'create', 'victim', '--json'], env)).stdout) as { id: string };
    const lines = (await svc(['export', 'src'], env)).stdout.trimEnd().split('\n');
    const at = lines.findIndex((l) => l.startsWith('{"type":"system"'));
    const crafted = [...lines];
    crafted[at] = JSON.stringify({ ...(JSON.parse(lines[at] as string) as object), project_id: other.id });
    const file = join(dir, 'crafted.jsonl');
    writeFileSync(file, `${crafted.join('\n')}\n`);
    const refused = await svc(['import', file, '--as', 'stolen'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`invalid_input: line ${at + 1}: field 'project_id' is ${other.id}, not the imported project`));
    expect(JSON.parse((await svc(['project', 'list', '--json'], env)).stdout).projects.map((p: { slug: string }) => p.slug)).not.toContain('stolen');

    const same = join(dir, 'src.jsonl');
    writeFileSync(same, `${lines.join('\n')}\n`);
    const again = await svc(['import', same], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("conflict: project slug 'src' already exists: import with --as NEW_SLUG");
    expect(again.stderr).not.toMatch(/constraint/);
    const versioned = [...lines];
    versioned[0] = JSON.stringify({ ...(JSON.parse(lines[0] as string) as object), format_version: '1' });
    writeFileSync(same, `${versioned.join('\n')}\n`);
    expect((await svc(['import', same], env)).stderr).toContain('invalid_input: line 1: format_version must be the number 1, not "1"');
  }, 120_000);

  it("a new project's slug may not read as another project's short id, or writes by that id would land in it", async () => {
    const made = await svc(['project', 'create', 'shadowed', '--json'], env);
    expect(made.code, made.stderr).toBe(0);
    const { id } = JSON.parse(made.stdout) as { id: string };
    const short = id.slice(0, 8);
    const hint = "reads as a project id or id prefix (8 or more hex digits): a slug must not, or it would hide the project whose id begins with it";
    expect(await svc(['project', 'create', short], env)).toEqual({ code: 1, stdout: '', stderr: `svc: invalid_input: <slug>: '${short}' ${hint}; add a letter beyond a-f\n` });
    expect((await svc(['project', 'create', id], env)).stderr).toContain(`'${id}' ${hint}`);
    expect((await svc(['init', '--project', id.slice(0, 11)], env)).stderr).toContain(`--project: '${id.slice(0, 11)}' ${hint}`);
    // The short id still names the project it belongs to; slugs that are no id prefix are kept.
    const added = await svc(['item', 'add', short, 'Written by short id', '--json'], env);
    expect(added.code, added.stderr).toBe(0);
    const shown = await svc(['item', 'show', (JSON.parse(added.stdout) as { id: string }).id, '--json'], env);
    expect(JSON.parse(shown.stdout)).toMatchObject({ item: { project_id: id } });
    for (const kept of ['cafe', 'dead-beef']) expect((await svc(['project', 'create', kept], env)).code).toBe(0);
    // A system is looked up by name before id too: a name that reads as a short id is refused (an attacker, 2026-11-27).
    const system = JSON.parse((await svc(['system', 'add', 'shadowed', 'billing', '--json'], env)).stdout) as { id: string };
    const named = await svc(['system', 'add', 'shadowed', system.id.slice(0, 8).toUpperCase()], env);
    expect(named).toEqual({
      code: 1,
      stdout: '',
      stderr: `svc: invalid_input: <name>: '${system.id.slice(0, 8).toUpperCase()}' reads as a system id or id prefix (8 or more hex digits): a system's name must not, or it would hide the system whose id begins with it; add a letter beyond a-f\n`,
    });

    // An export whose slug reads as an id prefix is imported only as a new slug (--as), with fresh ids.
    const file = join(dir, 'shadowed.jsonl');
    expect((await svc(['export', 'shadowed', '--out', file], env)).code).toBe(0);
    const crafted = join(dir, 'crafted.jsonl');
    writeFileSync(crafted, readFileSync(file, 'utf8').replace('"slug":"shadowed"', `"slug":"${short}"`).replaceAll(id, '0123abcd-0000-4000-8000-000000000000'));
    const refused = await svc(['import', crafted], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(new RegExp(`^svc: invalid_input: line \\d+: field 'slug' '${short}' reads as a project id or id prefix .*; or import with --as NEW_SLUG`));
    expect((await svc(['import', crafted, '--as', `${short}-copy`], env)).code).toBe(0);
    expect((await svc(['import', crafted, '--as', short], env)).stderr).toBe(`svc: invalid_input: --as: '${short}' ${hint}; add a letter beyond a-f\n`);
  }, 180_000);

  it('shows examples in --help', async () => {
    const help = await svc(['export', '--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Examples:');
  });
});
