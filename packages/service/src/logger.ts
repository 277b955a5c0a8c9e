import { pino } from 'pino';

export type Logger = pino.Logger;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Structured logs, always to stderr: stdout belongs to results (CLI) and to the protocol (MCP over stdio). */
export function createLogger(level: LogLevel = 'info'): Logger {
  return pino({ level, base: { service: 'svc' } }, pino.destination({ fd: 2, sync: true }));
}
