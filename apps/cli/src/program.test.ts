import { findOperation } from '@svc/service';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from './commands.js';
import { buildProgram } from './program.js';

const program = buildProgram({ out() {}, err() {} }, {});

function find(path: string[]): Command {
  let cmd = program;
  for (const name of path) cmd = cmd.commands.find((c) => c.name() === name) ?? expect.fail(`no command ${path.join(' ')}`);
  return cmd;
}

describe('the svc command tree', () => {
  it('gives --actor to every command that writes through the catalog and to none that only reads', () => {
    // [command, operation]: every operation-backed command of the CLI contract.
    const commands: [string, string][] = [
      ['project create', 'project_create'],
      ['project list', 'project_list'],
      ['project show', 'project_show'],
      ['project config import', 'project_config_import'],
      ['project config export', 'project_config_export'],
      ['system add', 'system_add'],
      ['actor add', 'actor_add'],
      ['actor list', 'actor_list'],
      ['type add', 'type_add'],
      ['type list', 'type_list'],
      ['item show', 'item_show'],
      ['item delete', 'item_delete'],
      ['item restore', 'item_restore'],
      ['item history', 'item_history'],
      ['link add', 'link_add'],
      ['link remove', 'link_remove'],
      ['work open', 'svc_work_open'],
      ['work reopen', 'work_reopen'],
      ['research sweep', 'research_sweep'],
      ['check', 'svc_check'],
      ['import', 'project_import'],
      ['glossary group add', 'glossary_group_add'],
      ['glossary term add', 'glossary_term_add'],
      ['glossary propose', 'glossary_term_propose'],
      ['glossary accept', 'glossary_term_accept'],
      ['glossary reject', 'glossary_term_reject'],
      ['glossary queue', 'glossary_queue'],
    ];
    const seen = commands.map(([path, operation]) => ({
      path,
      writes: findOperation(operation)?.kind === 'write',
      actor: find(path.split(' ')).options.some((o) => o.long === '--actor'),
    }));
    expect(seen.filter((c) => c.writes).length).toBeGreaterThan(10);
    for (const c of seen) expect({ path: c.path, actor: c.actor }).toEqual({ path: c.path, actor: c.writes });
  });
});

describe('the command table', () => {
  it('names only operations of the catalog and declares every group it uses', () => {
    const names = new Set(COMMANDS.map((c) => c.name));
    for (const entry of COMMANDS) {
      if ('operation' in entry) expect({ command: entry.name, found: findOperation(entry.operation) !== undefined }).toEqual({ command: entry.name, found: true });
      const words = entry.name.split(' ');
      for (let i = 1; i < words.length; i++) expect(names).toContain(words.slice(0, i).join(' '));
    }
  });
});
