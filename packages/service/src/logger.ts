import { pino } from 'pino';

export type Logger = pino.Logger;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * Structured logs, always to stderr: stdout belongs to results (CLI) and to the protocol (MCP over stdio).
 * Tests pass a destination of their own to read what was logged.
 */
export function createLogger(level: LogLevel = 'info', destination?: { write(line: string): void }): Logger {
  return pino({ level, base: { service: 'svc' } }, destination ?? pino.destination({ fd: 2, sync: true }));
}
