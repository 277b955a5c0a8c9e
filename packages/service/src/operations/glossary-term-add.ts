import { termOperation } from './glossary-shared.js';

export const glossaryTermAdd = termOperation(
  'glossary_term_add',
  'add',
  'Add an accepted term to a group; searches for any term of the group then find the others.',
);
