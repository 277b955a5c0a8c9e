import { invalidInput, parseQuery, planQuery, type TsPlan } from '@svc/domain';
import { refuseWordless } from '@svc/store';
import type { ReadContext } from '../operation.js';

/**
 * A search query that parses to no word at all (`OR`, punctuation): refused naming `query`, by every search, rather
 * than an empty answer that reads as "nothing was recorded" (decision 0045).
 */
export const wordlessQuery = (field = 'query') =>
  invalidInput(field, 'holds no words to search for (an empty query, or OR alone); give the words that carry the meaning');

/**
 * The plan of a capture or idea search's query (no glossary: SPEC expands item search only): undefined for an empty
 * one, which lists by the filters alone; refused, naming `query`, when it holds no word the index keeps.
 */
export async function filterSearchPlan(ctx: ReadContext, raw: string | undefined): Promise<TsPlan | undefined> {
  const query = raw?.trim() ?? '';
  if (query === '') return undefined;
  const plan = planQuery(parseQuery(query));
  if (!plan) throw wordlessQuery();
  await refuseWordless(ctx.db, plan);
  return plan;
}
