export { hostAllowed, hostRefusal, LOCAL_HOSTS } from './hosts.js';
export { createMcpHttpHandler, type McpHttpOptions } from './http.js';
export { createMcpServer, listTools, MAX_CONCURRENT_CALLS, type McpOptions, TOOLS_LIST_BUDGET } from './server.js';
export { serveStdio } from './stdio.js';
