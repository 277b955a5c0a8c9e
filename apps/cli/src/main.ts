#!/usr/bin/env node
import { isSvcError, SvcError } from '@svc/service';
import { CommanderError } from 'commander';
import { ExitCode, processIo, type RunState } from './output.js';
import { buildProgram } from './program.js';

/**
 * Exit codes: 0 success, 1 a refused or invalid request, 2 a usage error. A refusal goes to stderr (stdout
 * carries only results): as `svc: code: message`, or with --json as `{"error": {"code", "message", "details"}}`,
 * the shape HTTP answers with.
 */
async function main(): Promise<number> {
  const state: RunState = { json: false };
  const program = buildProgram(processIo, process.env, state);
  const refuse = (refusal: SvcError): number => {
    processIo.err(state.json ? JSON.stringify({ error: refusal.toJSON() }) : `svc: ${refusal.code}: ${refusal.message}`);
    return 1;
  };
  try {
    await program.parseAsync(process.argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    if (error instanceof ExitCode) {
      processIo.err(`svc: ${error.message}`);
      return error.code;
    }
    if (isSvcError(error)) return refuse(error);
    if (!state.json) {
      processIo.err(`svc: internal error: ${(error as Error).message}`);
      return 1;
    }
    return refuse(new SvcError('internal_error', (error as Error).message));
  }
}

// Standard output that cannot be written is said in one line, never as a stack: a reader gone (`svc export p | head`)
// ends the command quietly, anything else (`> /dev/full`) fails it (an unhandled 'error' event printed Node's stack).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  processIo.err(`svc: cannot write standard output (${error.code ?? error.message})`);
  process.exit(1);
});

process.exitCode = await main();
