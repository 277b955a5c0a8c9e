export { createHttpApp, type HttpOptions } from './app.js';
export { type RunningHttpServer, startHttpServer } from './server.js';
