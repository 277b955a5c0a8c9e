import type { PGlite } from '@electric-sql/pglite';
import type { StoreConfig } from './connection.js';
import type { SessionMutex } from './session-mutex.js';

/** How often the embedded database's tables are looked at, by default (StoreConfig.analyzeEveryMs). */
const ANALYZE_EVERY_MS = 60_000;

/**
 * The tables autovacuum's rule would analyze (more rows changed since their last ANALYZE than 50 + 10% of their
 * rows), and those never analyzed (pg_class.reltuples is -1 until the first ANALYZE or VACUUM).
 */
const DUE = `select quote_ident(c.relname) as name
  from pg_class c
  join pg_namespace n on n.oid = c.relnamespace
  left join pg_stat_user_tables s on s.relid = c.oid
  where n.nspname = 'public' and c.relkind = 'r'
    and (c.reltuples < 0 or coalesce(s.n_mod_since_analyze, 0) > 50 + 0.1 * greatest(c.reltuples, 0))
  order by c.relname`;

/**
 * PGlite runs no autovacuum, so its planner never had statistics unless an import rebuilt the search index: on a
 * project grown item by item, plans were made for empty tables (a search on 3,000 items: 140–230 ms unanalyzed,
 * 18–22 ms analyzed). This does autovacuum's ANALYZE part for the process that owns the database: at start and
 * every `everyMs`, the tables due are analyzed in one statement, holding the session between other callers'
 * units of work. The timer does not keep the process alive; `stop` waits for a run in progress.
 */
function startAutoAnalyze(pglite: PGlite, mutex: SessionMutex, everyMs: number, onError: (error: unknown) => void = () => {}): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = async () => {
    const release = await mutex.acquire();
    try {
      if (stopped || pglite.closed) return;
      const { rows } = await pglite.query<{ name: string }>(DUE);
      if (rows.length > 0) await pglite.exec(`analyze ${rows.map((r) => r.name).join(', ')}`);
    } finally {
      release();
    }
  };
  const tick = () => {
    if (running || stopped) return;
    running = run()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(tick, Math.min(everyMs, 1_000));
  const timer = setInterval(tick, everyMs);
  first.unref();
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}

/** The embedded database's automatic ANALYZE, as `config` sets it (undefined when turned off). */
export function autoAnalyze(pglite: PGlite, mutex: SessionMutex, config: StoreConfig): { stop(): Promise<void> } | undefined {
  const every = config.analyzeEveryMs ?? ANALYZE_EVERY_MS;
  if (every <= 0) return undefined;
  return startAutoAnalyze(pglite, mutex, every, (error) => config.onWarning?.(`automatic ANALYZE of the embedded database failed: ${(error as Error).message}`));
}
