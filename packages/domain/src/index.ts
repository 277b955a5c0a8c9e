export { validateContext, validateTypeSchema } from './context.js';
export { type ErrorCode, type ErrorDetails, invalidInput, isSvcError, notFound, SvcError } from './errors.js';
export {
  type IdRef,
  isSlug,
  isUuid,
  MIN_PREFIX_LENGTH,
  parseIdRef,
  SHORT_ID_LENGTH,
  shortId,
} from './ids.js';
export {
  isSystemItemType,
  isTypeKey,
  type JsonSchema,
  keepItemType,
  LINK_TYPES,
  LINK_WAITER,
  type LinkType,
  QA_COVERAGES,
  QA_STATUSES,
  type QaCoverage,
  type QaStatus,
  SYSTEM_ITEM_TYPES,
  SYSTEM_TYPE_SCHEMAS,
  type SystemItemType,
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
  type VersionFacts,
} from './semantic-impact.js';
export { type Actor, DEFAULT_RESEARCH_TTL_DAYS, type Item, type Project, type ProjectSettings, projectSettings } from './item.js';
export { checkJsonDepth, jsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
export { REDACTED, redactContext, redactSourceUrl } from './redaction.js';
export { checkSchemaPatterns, linearRegExp } from './linear-regexp.js';
export {
  type Clause,
  expandableTerms,
  expandQuery,
  glossaryKeys,
  MAX_EXPANSIONS,
  MAX_SYNONYMS_PER_TERM,
  MAX_CLAUSES,
  MAX_QUERY_LENGTH,
  normalizeTerm,
  onlyNegations,
  parseQuery,
  planQuery,
  type QueryAst,
  type QueryPlan,
  SYNONYMS_TO_READ,
  type Term,
  type TsPlan,
} from './query.js';
export { type NearMissPlan, nearMissPlan, type RequiredWord } from './near-miss.js';
export {
  type DraftDecision,
  draftDecision,
  QA_TRIGGERS,
  type QaTrigger,
  qaTransition,
  TASK_TRIGGERS,
  type TaskTrigger,
  taskTransition,
  WORK_UNIT_STATUSES,
  WORK_UNIT_TRIGGERS,
  type WorkUnitStatus,
  type WorkUnitTrigger,
  workUnitTransition,
} from './states.js';
export {
  atLeast,
  findCycles,
  findRule,
  LINK_PRIORITY,
  MAX_IMPACT_DEPTH,
  RESEARCH_EXPIRING_DAYS,
  RULES,
  type RuleId,
  type RuleInfo,
  SEVERITIES,
  type Severity,
} from './rules.js';
