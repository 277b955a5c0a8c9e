export { hostAllowed, hostRefusal, LOCAL_HOSTS } from './hosts.js';
export { createMcpHttpHandler, type McpHttpOptions } from './http.js';
export { createMcpServer, listTools, MAX_CONCURRENT_CALLS, type McpOptions } from './server.js';
export { serveStdio } from './stdio.js';
