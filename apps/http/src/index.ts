export { createHttpApp } from './app.js';
export { type Route, ROUTES } from './routes.js';
export { startHttpServer } from './server.js';
