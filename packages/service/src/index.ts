export {
  CAPTURE_MOVABLE_STATES,
  captureTransition,
  IMPACT_DIRECTIONS,
  MAX_IMPACT_DEPTH,
  CAPTURE_STATES,
  type CaptureState,
  ERROR_CODES,
  type ErrorCode,
  isSvcError,
  jsonErrorPlace,
  SEVERITIES,
  type Severity,
  SvcError,
  shortId,
  snippetParts,
  SYSTEM_ITEM_TYPES,
  type TaskStatus,
  withFieldNamed,
} from '@svc/domain';
export { findOperation, nearestToolName, ops, toolOperations } from './catalog.js';
export { type Config, loadConfig, parseHost } from './config.js';
export { inline, ref } from './markdown.js';
export { createLogger } from './logger.js';
export {
  addressedFields,
  type AnyOperation,
  type InputOf,
  type OutputOf,
  type Source,
} from './operation.js';
export type { CallContext } from './runner.js';
export { codeVersion, createService, embeddedDatabaseReady, migrateDatabase, openService, schemaStatus, type Service } from './service.js';
export { CONFIG_MAX_BYTES } from './operations/project-config-shared.js';
export { IMPORT_MAX_BYTES, IMPORT_MAX_LINE_BYTES } from './transfer/file.js';
export { MAX_REQUEST_ID } from './inputs.js';
export { type Diagnosis, diagnose } from './doctor.js';
export type { CompletionKind } from './operations/completion.js';
export { fromZod } from './errors.js';
export { announceHttpServer, ensureFirstUse, type FirstUse, portOf, runningHttpServer } from './first-use.js';
