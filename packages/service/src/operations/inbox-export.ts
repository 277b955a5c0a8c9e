import { INBOX_TABLES } from '@svc/store';
import { z } from 'zod';
import { defineOperation } from '../operation.js';
import { exportLines } from './transfer-shared.js';

export const inboxExport = defineOperation({
  name: 'inbox_export',
  surface: 'operator',
  title: 'Export the shared inbox',
  description:
    'Export the shared inbox as JSON Lines in the export format: a header saying inbox, the captures filed ' +
    'under no project and promoted into none (redacted ones masked), the actors they name, and an end record. ' +
    "A promoted capture travels with its project's export instead.",
  input: z.object({}),
  kind: 'read',
  annotations: { idempotentHint: true },
  snapshot: true,
  async run(ctx) {
    return exportLines(ctx, INBOX_TABLES, null, { inbox: true });
  },
});
