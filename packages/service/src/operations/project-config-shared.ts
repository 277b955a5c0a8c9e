import { findRule, RULES, SvcError } from '@svc/domain';
import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import { fromZod } from '../errors.js';

/** The project configuration file: exactly these sections and keys; anything else is an error naming it. */
export const configSchema = z
  .object({
    research: z
      .object({ ttl_days: z.number().int('must be a whole number of days').min(1).max(36_500).optional() })
      .strict()
      .optional(),
    checks: z
      .object({
        disabled_rules: z
          .array(z.string().refine((id) => findRule(id) !== undefined, { message: `unknown rule; rules: ${RULES.map((r) => r.id).join(', ')}` }))
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** Check stored settings (an import's project record) by the rules a configuration file obeys. */
export function validateProjectSettings(settings: unknown): z.output<typeof configSchema> {
  const parsed = configSchema.safeParse(settings);
  if (!parsed.success) throw fromZod(parsed.error);
  return parsed.data;
}

export function parseProjectConfig(text: string): z.output<typeof configSchema> {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    const where = error instanceof TomlError ? ` (line ${error.line}, column ${error.column})` : '';
    throw new SvcError('invalid_input', `config: not valid TOML${where}: ${(error as Error).message.split('\n')[0]}`, { field: 'config' });
  }
  return validateProjectSettings(raw);
}

/** The largest configuration file read (`svc project config import`). */
export const CONFIG_MAX_BYTES = 1024 * 1024;
