import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DOCS = join(ROOT, 'docs');

const pagesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pagesUnder(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );

/**
 * Paths under src/ a page names in backquotes (`src/engine/ecf/issue.ts`, or a folder). A
 * placeholder (`<env>`, `{id}`) or a wildcard is a pattern, not a path, so it is not checked.
 */
function srcPaths(text: string): string[] {
  const found = new Set<string>();
  for (const [, inside = ''] of text.matchAll(/`([^`\n]+)`/g)) {
    const path = inside.split(/\s/)[0] ?? '';
    if (path.startsWith('src/') && !/[<>{}*]/.test(path)) found.add(path.replace(/[.,;:)]+$/, ''));
  }
  return [...found];
}

/** Targets of markdown links that stay in the repository (no scheme), without their #anchor. */
function localLinks(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target = '']) => target.split('#')[0] ?? '')
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target));
}

describe('docs name files that exist', () => {
  const pages = [join(ROOT, 'README.md'), ...pagesUnder(DOCS)];

  it('docs/contract-map.md maps rules to files', () => {
    const map = readFileSync(join(DOCS, 'contract-map.md'), 'utf8');
    expect(srcPaths(map).length).toBeGreaterThan(50);
  });

  for (const page of pages) {
    it(`every src/ path in ${relative(ROOT, page)} exists`, () => {
      const missing = srcPaths(readFileSync(page, 'utf8')).filter((p) => !existsSync(join(ROOT, p)));
      expect(missing, `moved or renamed? fix the path in ${relative(ROOT, page)}`).toEqual([]);
    });

    it(`every link of ${relative(ROOT, page)} to a page or file of the repository leads somewhere`, () => {
      const missing = localLinks(readFileSync(page, 'utf8')).filter((l) => !existsSync(join(dirname(page), l)));
      expect(missing).toEqual([]);
    });
  }
});
