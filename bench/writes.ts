import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createService, ops, type Service } from '@svc/service';
import { MIGRATIONS_DIR, migrate, openStore, type Store } from '@svc/store';
import { sql } from 'kysely';
import { itemText, rng, SEED, technicalText, type Vocabulary } from './corpus.js';
import { createProjects, DAY, type ProjectRef, recreateDatabase, SPAN, seedGlossary, seedThenIndex } from './seed.js';
import { glossary } from './shapes.js';

/**
 * Write cost of keeping the search index current (issue 18: at most 30% of the upsert throughput). Two
 * databases on the same server, side by side in one run: one migrated to 0010 (main before BM25: the
 * recency-window search, no index tables, no trigger) and one migrated to the latest. Each first holds
 * `base` items of the same corpus (seeded with SQL), then both take the same svc_item_upsert calls through
 * the service (new items, then edits of those items, which supersede the head), in interleaved rounds so a
 * burst of other work on the machine lands on both alike.
 */

interface WriteVariant {
  name: string;
  creates: number;
  edits: number;
  /** Calls per second from the median call (robust to bursts of other work on a shared machine). */
  createRate: number;
  editRate: number;
  /** Calls per second over all calls. */
  createMean: number;
  editMean: number;
  /** The same from the median call, for technical text (technicalText: prose naming files, hosts and identifiers). */
  techCreateRate: number;
  techEditRate: number;
}

export interface WriteResult {
  base: number;
  calls: number;
  rounds: number;
  variants: WriteVariant[];
}

interface Side {
  name: string;
  store: Store;
  service: Service;
  project: ProjectRef;
  created: string[];
  createMs: number[];
  editMs: number[];
  techCreateMs: number[];
  techEditMs: number[];
}

/** A migrations folder holding only the migrations up to `last` (inclusive). */
function migrationsUpTo(last: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-migrations-'));
  for (const f of readdirSync(MIGRATIONS_DIR)) if (f.endsWith('.sql') && f.slice(0, 4) <= last) cpSync(join(MIGRATIONS_DIR, f), join(dir, f));
  return dir;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : (s[Math.floor((s.length - 1) / 2)] as number);
}

async function open(server: URL, database: string, name: string, migrationsDir: string | undefined, v: Vocabulary, base: number): Promise<Side> {
  const store = await openStore({ databaseUrl: await recreateDatabase(server, database), statementTimeoutMs: 600_000 });
  await migrate(store.db, migrationsDir);
  const service = createService(store);
  const [project] = await createProjects(service, ['writes']);
  if (!project) throw new Error('no project');
  // The measured project's glossary (two groups of frequent words): since 0019 a write keeps their postings too.
  await seedGlossary(service, project.slug, glossary(v.words));
  const now = Date.now();
  await seedThenIndex(store.db, v, rng(SEED + 7), [{ project, items: base }], { from: now - SPAN, to: now - DAY });
  await sql`vacuum analyze`.execute(store.db);
  return { name, store, service, project, created: [], createMs: [], editMs: [], techCreateMs: [], techEditMs: [] };
}

export async function measureWrites(
  server: URL,
  v: Vocabulary,
  opts: { base: number; calls: number; rounds: number; log: (m: string) => void; also?: string[] },
): Promise<WriteResult> {
  // The first side is main before BM25; `also` adds intermediate schemas (e.g. 0011, the first BM25 schema), so
  // that a change of the index's write path is measured against both in the same run.
  const schemas = ['0010', ...(opts.also ?? [])];
  const dirs = schemas.map((s) => migrationsUpTo(s));
  const sides: Side[] = [];
  try {
    opts.log(`writes: ${schemas.length + 1} databases with ${opts.base.toLocaleString('en')} items each (schemas ${schemas.join(', ')} and the latest)`);
    for (const [i, s] of schemas.entries()) {
      const name = s === '0010' ? 'main (0010: no search index)' : s === '0011' ? 'BM25, 0011 (postings straight into the main index)' : `schema ${s}`;
      sides.push(await open(server, `svc_bench_w${s}`, name, dirs[i], v, opts.base));
    }
    sides.push(await open(server, 'svc_bench_wlatest', 'BM25 index kept by the trigger (latest)', undefined, v, opts.base));
    const perRound = Math.ceil(opts.calls / opts.rounds);
    const timed = async (fn: () => Promise<unknown>, into: number[] | undefined) => {
      const t0 = process.hrtime.bigint();
      await fn();
      into?.push(Number(process.hrtime.bigint() - t0) / 1e6);
    };
    // Round 0 warms up (caches, plans, connections) and is not counted.
    for (let round = 0; round <= opts.rounds; round++) {
      // Both sides write the same text: the same generator seed per round.
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const n = round === 0 ? Math.min(perRound, 50) : perRound;
        // Prose (the bench's corpus), then a tenth as many technical texts, each with its own seed per round.
        const passes = [
          { text: itemText, r: rng(SEED + 100 + round), n, createMs: side.createMs, editMs: side.editMs },
          { text: technicalText, r: rng(SEED + 500 + round), n: Math.ceil(n / 10), createMs: side.techCreateMs, editMs: side.techEditMs },
        ];
        for (const pass of passes) {
          const mine: string[] = [];
          for (let i = 0; i < pass.n; i++) {
            const { title, body } = pass.text(v, pass.r);
            await timed(async () => {
              const out = (await side.service.call(ops.svc_item_upsert, { project_id: side.project.id, title, body }, { source: 'cli' })) as { id: string };
              mine.push(out.id);
            }, round === 0 ? undefined : pass.createMs);
          }
          // Edit the items this pass created: each edit supersedes a head (index: remove the old, add the new).
          for (const id of mine) {
            const { body } = pass.text(v, pass.r);
            await timed(
              () => side.service.call(ops.svc_item_upsert, { project_id: side.project.id, item_id: id, body }, { source: 'cli' }),
              round === 0 ? undefined : pass.editMs,
            );
          }
          if (round > 0) side.created.push(...mine);
        }
      }
      if (round > 0) opts.log(`  round ${round}/${opts.rounds}: ${sides.map((s) => `${s.name} median create ${median(s.createMs).toFixed(1)} ms, edit ${median(s.editMs).toFixed(1)} ms`).join('; ')}`);
    }
    return {
      base: opts.base,
      calls: perRound * opts.rounds,
      rounds: opts.rounds,
      variants: sides.map((s) => ({
        name: s.name,
        creates: s.created.length,
        edits: s.editMs.length,
        createRate: 1000 / median(s.createMs),
        editRate: 1000 / median(s.editMs),
        createMean: (s.createMs.length / sum(s.createMs)) * 1000,
        editMean: (s.editMs.length / sum(s.editMs)) * 1000,
        techCreateRate: 1000 / median(s.techCreateMs),
        techEditRate: 1000 / median(s.techEditMs),
      })),
    };
  } finally {
    for (const s of sides) await s.store.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

export function writesTable(w: WriteResult): string {
  const before = w.variants[0];
  const after = w.variants[w.variants.length - 1];
  const cost = (a: number, b: number) => `${Math.round((1 - b / a) * 100)}%`;
  const out = [
    '### Writes: the cost of keeping the search index current (PostgreSQL)',
    '',
    `\`svc_item_upsert\` through the service, one call at a time: ${w.calls.toLocaleString('en')} new items, then an edit of each`,
    `(a new version superseding the head), in ${w.rounds} interleaved rounds, into a project already holding`,
    `${w.base.toLocaleString('en')} items; ${w.variants.length} databases on the same server in the same run (bench/writes.ts).`,
    'Each round also writes a tenth as many *technical* items (bench/corpus.ts `technicalText`: the prose with a',
    'sentence naming 3–10 files, an underscore identifier, a host with a port, a URL path, an e-mail address and a',
    'ticket id, the pieces migration 0016 indexes besides the words). The project holds the bench\'s glossary',
    '(bench/shapes.ts: two groups of frequent words), whose group postings every write keeps since migration 0019.',
    '',
    'Calls per second from the median call time (all calls in brackets: bursts of other work on the shared',
    'machine weigh on those).',
    '',
    '| schema | creates/s | edits/s | technical creates/s | technical edits/s |',
    '|---|---:|---:|---:|---:|',
    ...w.variants.map(
      (x) =>
        `| ${x.name} | ${x.createRate.toFixed(0)} (${x.createMean.toFixed(0)}) | ${x.editRate.toFixed(0)} (${x.editMean.toFixed(0)}) | ${x.techCreateRate.toFixed(0)} | ${x.techEditRate.toFixed(0)} |`,
    ),
  ];
  if (before && after) {
    out.push(
      '',
      `Throughput lost to the index, latest against main (medians): creates ${cost(before.createRate, after.createRate)}, edits ${cost(before.editRate, after.editRate)};`,
      `all calls: creates ${cost(before.createMean, after.createMean)}, edits ${cost(before.editMean, after.editMean)} (target ≤ 30%);`,
      `technical items (medians): creates ${cost(before.techCreateRate, after.techCreateRate)}, edits ${cost(before.techEditRate, after.techEditRate)}.`,
    );
  }
  return out.join('\n');
}
