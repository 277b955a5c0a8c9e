#!/usr/bin/env node
// The `svc` command. In a checkout with its dev dependencies (tsx), it runs the TypeScript source, so it is
// never a stale build; where tsx is not installed (a production install, the Docker image), it runs the build
// in dist/. See docs/decisions/0021.
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const source = new URL('../src/main.ts', import.meta.url);
const tsx = existsSync(source) ? await import('tsx/esm/api').catch(() => undefined) : undefined;

if (tsx) {
  tsx.register();
  // Workspace packages export their source under the `@svc/source` condition (what `--conditions` sets for
  // `pnpm svc`); registered after tsx, this hook runs first and hands the condition on to it.
  const hook = `export function resolve(specifier, context, next) {
    return next(specifier, { ...context, conditions: [...context.conditions, '@svc/source'] });
  }`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
  await import(source.href);
} else {
  await import('../dist/main.js');
}
