export { hostRefusal, isAddressedOrigin } from './hosts.js';
export { createMcpHttpHandler } from './http.js';
export { listTools } from './server.js';
export { serveStdio } from './stdio.js';
