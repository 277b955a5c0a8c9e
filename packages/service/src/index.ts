export {
  type Actor,
  CAPTURE_STATES,
  type CaptureState,
  ERROR_CODES,
  type ErrorCode,
  type Item,
  isSvcError,
  type Project,
  SEVERITIES,
  type Severity,
  SvcError,
  shortId,
} from '@svc/domain';
export { catalog, findOperation, ops, toolOperations } from './catalog.js';
export { type Config, loadConfig } from './config.js';
export { fromDatabase } from './errors.js';
export { inline, ref } from './markdown.js';
export { createLogger, type Logger, type LogLevel } from './logger.js';
export {
  addressedFields,
  type AnyOperation,
  defineOperation,
  type Hints,
  type InputOf,
  type MaintenanceContext,
  type Operation,
  type OperationContext,
  type OperationKind,
  type OutputOf,
  type ReadContext,
  type WriteContext,
  type Presentation,
  type Source,
  type Surface,
} from './operation.js';
export { type CallContext, normaliseInput } from './runner.js';
export { codeVersion, createService, migrateDatabase, openService, schemaStatus, type Service } from './service.js';
export { CONFIG_MAX_BYTES } from './operations/project-config-shared.js';
export { IMPORT_MAX_BYTES, IMPORT_MAX_LINE_BYTES } from './transfer/file.js';
export { type Check, type CheckStatus, type DiagnoseOptions, type Diagnosis, diagnose } from './doctor.js';
export { DEFAULT_PROJECT, defaultActorEmail } from './operations/setup.js';
export type { CompletionKind } from './operations/completion.js';
export { ensureFirstUse, type FirstUse } from './first-use.js';
