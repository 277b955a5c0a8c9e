import { projectRef } from '../inputs.js';

export const scopeField = projectRef.optional().describe('Scope ids to this project');
