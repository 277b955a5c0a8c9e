export { createMcpHttpHandler, LOCAL_HOSTS, type McpHttpOptions } from './http.js';
export { createMcpServer, listTools, type McpOptions, TOOLS_LIST_BUDGET } from './server.js';
export { serveStdio } from './stdio.js';
