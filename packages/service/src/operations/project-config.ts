import { findRule, RULES, SvcError } from '@svc/domain';
import { resolveProject, updateProjectSettings } from '@svc/store';
import { parse, stringify, TomlError } from 'smol-toml';
import { z } from 'zod';
import { fromZod } from '../errors.js';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';

/** The project configuration file: exactly these sections and keys; anything else is an error naming it. */
const configSchema = z
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

function parseProjectConfig(text: string): z.output<typeof configSchema> {
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

export const projectConfigImport = defineOperation({
  name: 'project_config_import',
  surface: 'operator',
  title: 'Import project configuration',
  description: 'Apply a TOML project configuration ([research] ttl_days, [checks] disabled_rules); keys it omits keep their values.',
  input: z.object({ project_id: projectRef, config: z.string().max(CONFIG_MAX_BYTES).describe('The TOML text (at most 1 MiB)') }),
  kind: 'write',
  annotations: { destructiveHint: false, idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.tx, input.project_id);
    const config = parseProjectConfig(input.config);
    const settings = {
      research: { ...project.settings.research, ...config.research },
      checks: { ...project.settings.checks, ...config.checks },
    };
    const updated = await updateProjectSettings(ctx.tx, project.id, settings);
    ctx.audit({ project_id: project.id, target_kind: 'project', target_id: project.id, details: { settings } });
    return updated;
  },
});

export const projectConfigExport = defineOperation({
  name: 'project_config_export',
  surface: 'operator',
  title: 'Export project configuration',
  description: 'The project configuration as TOML.',
  input: z.object({ project_id: projectRef }),
  kind: 'read',
  annotations: { idempotentHint: true },
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    return { project_id: project.id, config: stringify(project.settings) };
  },
});
