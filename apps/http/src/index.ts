export { createHttpApp, type HttpOptions, MAX_BODY_BYTES, STATUS } from './app.js';
export { buildOpenApi } from './openapi.js';
export { type Route, ROUTES } from './routes.js';
export { type RunningHttpServer, startHttpServer } from './server.js';
