export { validateContext, validateTypeSchema } from './context.js';
export { ERROR_CODES, type ErrorCode, invalidInput, isSvcError, notFound, SvcError, withFieldNamed } from './errors.js';
export {
  type IdRef,
  isSlug,
  idLikeName,
  isUuid,
  newSlugRefusal,
  parseIdRef,
  shortId,
} from './ids.js';
export {
  isTypeKey,
  type JsonSchema,
  keepItemType,
  LINK_TYPES,
  type ItemStatus,
  type LinkType,
  QA_COVERAGES,
  type QaStatus,
  SYSTEM_ITEM_TYPES,
  SYSTEM_TYPE_SCHEMAS,
  TASK_STATUSES,
  type TaskStatus,
  WAIT_LINK_TYPES,
  waitForEdge,
} from './item-types.js';
export {
  classifySemanticImpact,
  isSemanticImpact,
  rewritesContent,
  SEMANTIC_IMPACTS,
  type SemanticImpact,
} from './semantic-impact.js';
export { type Actor, type Item, type Project, projectSettings } from './item.js';
export { checkJsonDepth, checkJsonSize, MAX_JSON_CHARS, MAX_JSON_DEPTH } from './json-depth.js';
export { jsonErrorPlace } from './json-place.js';
export { REDACTED, redactContext, redactSourceUrl } from './redaction.js';
export { checkSourceUrl, MAX_SOURCE_URL } from './source-url.js';
export {
  expandableTerms,
  expandQuery,
  MAX_EXPANSIONS,
  MAX_SYNONYMS_PER_TERM,
  MAX_CLAUSES,
  MAX_QUERY_LENGTH,
  normalizeTerm,
  parseQuery,
  planQuery,
  positiveLeaves,
  SYNONYMS_TO_READ,
  type TsPlan,
} from './query.js';
export { heldBy, type NearMissPlan, nearMissPlan } from './near-miss.js';
export { type Compounds, MATCH_START, MATCH_STOP, markSnippet, SNIPPET_SOURCE_CHARS, snippetMarkdown, snippetParts } from './snippet.js';
export {
  CAPTURE_MOVABLE_STATES,
  CAPTURE_STATES,
  type CaptureEvent,
  type CaptureState,
  captureMoveEvent,
  captureTransition,
  draftDecision,
  type GlossaryEntryEvent,
  type GlossaryEntryState,
  glossaryEntryTransition,
  checkNewTaskContext,
  checkQaContext,
  type GlossaryTermEvent,
  type GlossaryTermStatus,
  glossaryTermTransition,
  ideaTransition,
  itemLifecycleTransition,
  qaStatusOf,
  qaTransition,
  refuseCloseWhileRunning,
  refuseSecondInProgress,
  taskStatusOf,
  taskTransition,
  type WorkUnitStatus,
  workUnitTransition,
} from './states.js';
export {
  atLeast,
  findCycles,
  findRule,
  IMPACT_DIRECTIONS,
  type ImpactDirection,
  LINK_PRIORITY,
  MAX_IMPACT_DEPTH,
  RESEARCH_EXPIRING_DAYS,
  RULES,
  type RuleId,
  SEVERITIES,
  type Severity,
} from './rules.js';

// The types below are named by no code outside this package, but the declarations of the packages above need
// them: they appear in the types of what this index exports, and tsc must be able to name them. @public keeps
// knip (which reports every other export nothing imports) from reporting them.
/** @public */
export type { ProjectSettings } from './item.js';
/** @public */
export type { DraftDecision } from './states.js';
