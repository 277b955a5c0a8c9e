import { termOperation } from './glossary-shared.js';

export const glossaryTermPropose = termOperation(
  'glossary_term_propose',
  'propose',
  'Propose a term for a group; it joins the review queue and expands searches only once accepted.',
);
