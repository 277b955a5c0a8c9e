import { resolveProject, updateProjectSettings } from '@svc/store';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { CONFIG_MAX_BYTES, parseProjectConfig } from './project-config-shared.js';

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
