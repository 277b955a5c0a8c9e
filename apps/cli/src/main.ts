#!/usr/bin/env node
import { isSvcError } from '@svc/service';
import { CommanderError } from 'commander';
import { processIo } from './output.js';
import { buildProgram } from './program.js';

/** Exit codes: 0 success, 1 a refused or invalid request, 2 a usage error. */
async function main(): Promise<number> {
  const program = buildProgram(processIo);
  try {
    await program.parseAsync(process.argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : 2;
    }
    if (isSvcError(error)) {
      processIo.err(`svc: ${error.code}: ${error.message}`);
      return 1;
    }
    processIo.err(`svc: internal error: ${(error as Error).message}`);
    return 1;
  }
}

process.exitCode = await main();
