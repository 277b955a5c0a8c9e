import { resolveProject, TABLES } from '@svc/store';
import { z } from 'zod';
import { projectRef } from '../inputs.js';
import { defineOperation } from '../operation.js';
import { exportLines } from './transfer-shared.js';

export const projectExport = defineOperation({
  name: 'project_export',
  surface: 'operator',
  title: 'Export a project',
  description:
    "Export a project's whole memory as JSON Lines: a header (format and schema version), every row — all " +
    'item versions, links, history, work units, tasks, QA checks, the captures filed under it or promoted ' +
    'into it (redacted ones masked) and their bridge rows, ideas, glossary, sync jobs, audit, settings and the ' +
    'actors they name — and an end record.',
  input: z.object({ project_id: projectRef }),
  kind: 'read',
  annotations: { idempotentHint: true },
  snapshot: true,
  async run(ctx, input) {
    const project = await resolveProject(ctx.db, input.project_id);
    return exportLines(ctx, TABLES, project.id, { project: project.slug });
  },
});
