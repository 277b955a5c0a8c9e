import type { ItemStatus } from './item-types.js';

/** An item version as the service shows it: the row, with its chain and its place in it. */
export interface Item {
  id: string;
  chain_id: string;
  project_id: string;
  system_id: string | null;
  item_type: string;
  title: string;
  body: string;
  context: Record<string, unknown>;
  source_url: string | null;
  work_unit_id: string | null;
  status: ItemStatus | null;
  version: number;
  supersedes_id: string | null;
  is_head: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  /** When a person last wrote what it says (created it, or edited title, body, context or source); research expires from it. */
  refreshed_at: string;
  deleted_at: string | null;
}

export interface Project {
  id: string;
  slug: string;
  name: string;
  settings: ProjectSettings;
  created_at: string;
}

export interface ProjectSettings {
  research: { ttl_days: number };
  checks: { disabled_rules: string[] };
}

const DEFAULT_RESEARCH_TTL_DAYS = 90;

/** Settings as stored may be partial; fill the defaults. */
export function projectSettings(stored: Record<string, unknown>): ProjectSettings {
  const research = (stored.research ?? {}) as { ttl_days?: unknown };
  const checks = (stored.checks ?? {}) as { disabled_rules?: unknown };
  return {
    research: {
      ttl_days: typeof research.ttl_days === 'number' ? research.ttl_days : DEFAULT_RESEARCH_TTL_DAYS,
    },
    checks: {
      disabled_rules: Array.isArray(checks.disabled_rules)
        ? checks.disabled_rules.filter((r): r is string => typeof r === 'string')
        : [],
    },
  };
}

export interface Actor {
  id: string;
  email: string;
  name: string;
  role: string | null;
  external_ids: Record<string, string>;
  joined_at: string;
}
