export { createMcpHttpHandler, LOCAL_HOSTS, type McpHttpOptions } from './http.js';
export { createMcpServer, listTools, type McpOptions } from './server.js';
export { serveStdio } from './stdio.js';
