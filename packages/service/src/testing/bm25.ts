import { BM25, type Database } from '@svc/store';
import { type Kysely, sql } from 'kysely';

/** A project's current items as BM25F sees them, read from their vectors alone: the tests' brute-force reference. */
export interface Bm25Corpus {
  docs: Map<string, { dl: number; tf: Map<string, number> }>;
  df: Map<string, number>;
  avgdl: number;
}

/** Each current item's length and field-weighted term frequencies (3 × title + body), with df and the average length. */
export async function bm25Corpus(db: Kysely<Database>, projectId: string): Promise<Bm25Corpus> {
  const { rows } = await sql<{ id: string; term: string; tf: number; dl: number }>`
    select i.id, u.lexeme as term,
           ${BM25.TITLE_WEIGHT} * cardinality(array_positions(u.weights, 'A')) + cardinality(u.weights) - cardinality(array_positions(u.weights, 'A')) as tf,
           (sum(cardinality(u.weights)) over (partition by i.id))::int as dl
    from items i, unnest(i.search) u where i.project_id = ${projectId}::uuid and i.is_head and i.deleted_at is null`.execute(db);
  const docs = new Map<string, { dl: number; tf: Map<string, number> }>();
  const df = new Map<string, number>();
  for (const r of rows) {
    const d = docs.get(r.id) ?? { dl: Number(r.dl), tf: new Map() };
    d.tf.set(r.term, Number(r.tf));
    docs.set(r.id, d);
    df.set(r.term, (df.get(r.term) ?? 0) + 1);
  }
  return { docs, df, avgdl: [...docs.values()].reduce((s, d) => s + d.dl, 0) / docs.size };
}
