import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, shippedMigrations } from './testing/svc-process.js';

/** The body of a `## title` section of a markdown file, up to the next `## `. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`no '## ${title}' section`);
  const rest = markdown.slice(start + title.length + 5);
  const end = rest.indexOf('\n## ');
  return end === -1 ? rest : rest.slice(0, end);
}

/** Folders of the repository that are its own (not dependencies, build output or local data: .gitignore). */
function ownFolders(dir: string): string[] {
  const ignored = readFileSync(join(REPO_ROOT, '.gitignore'), 'utf8')
    .split('\n')
    .filter((l) => l.endsWith('/'))
    .map((l) => l.slice(0, -1));
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== '.git' && !ignored.includes(e.name))
    .map((e) => (dir === '' ? e.name : `${dir}/${e.name}`));
}

describe('README.md says what the repository holds', () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

  it('lists every migration file, in order, with the release of its header', () => {
    const listed = [...section(readme, 'Migrations').matchAll(/^- `(\d{4}_[a-z0-9_]+\.sql)` \((v[\d.]+)\)/gm)].map((m) => [m[1], m[2]]);
    const files = readdirSync(join(REPO_ROOT, 'migrations')).filter((f) => f.endsWith('.sql')).sort();
    const releases = new Map(shippedMigrations().map((m) => [m.id, m.release]));
    expect(listed).toEqual(files.map((f) => [f, releases.get(f.slice(0, 4))]));
  });

  it('and docs/versions.md has a row for each migration', () => {
    const versions = readFileSync(join(REPO_ROOT, 'docs/versions.md'), 'utf8');
    const rows = [...versions.matchAll(/^\| (v[\d.]+) \| (\d{4}) \|/gm)].map((m) => [m[2], m[1]]);
    expect(rows).toEqual(shippedMigrations().map((m) => [m.id, m.release]));
  });

  it('lays out every folder that exists, and no folder that does not', () => {
    const block = /```\n([\s\S]*?)```/.exec(section(readme, 'Layout'))?.[1] ?? '';
    const listed = block
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => (l.split(/\s+/)[0] as string).replace(/\/$/, ''));
    for (const path of listed) expect(existsSync(join(REPO_ROOT, path)) && statSync(join(REPO_ROOT, path)).isDirectory(), `${path} is listed but is not a folder`).toBe(true);
    // Every top-level folder, and every package and app, has its line (a folder with listed children counts).
    const expected = [...ownFolders(''), ...ownFolders('packages'), ...ownFolders('apps')];
    for (const folder of expected) {
      expect(listed.some((p) => p === folder || p.startsWith(`${folder}/`)), `${folder}/ is missing from the README layout`).toBe(true);
    }
  });
});
