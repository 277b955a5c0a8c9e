export { createMcpServer, listTools, type McpOptions } from './server.js';
export { serveStdio } from './stdio.js';
