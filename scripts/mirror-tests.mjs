#!/usr/bin/env node
// Moves the tests to the layout that mirrors src/ (issue 26, step 6) with `git mv`, then rewrites every
// relative path that pointed at a moved file: import specifiers, `new URL(..., import.meta.url)`,
// `resolve(dirname(fileURLToPath(import.meta.url)), ...)`, and the test paths named by configs.
// Deterministic and idempotent: on an already-mirrored tree it moves and rewrites nothing.
// Run from the repository root: `node scripts/mirror-tests.mjs` (add `--dry-run` to only print).
//
// Decisions:
// - Shared helpers stay where they are (test/helpers.ts, test/api.ts, test/cli-runner.ts, test/certs.ts,
//   test/postgres.ts, test/global-setup.ts, test/serve-process.ts, test/fixtures/**): they mirror no src
//   file and every area uses them. Helpers that belong to one area (harness.ts, tools.ts, fixtures.ts
//   inside an area folder) move with their area.
// - An area folder moves whole, its door tests included (test/limits/cli.test.ts goes to
//   test/engine/limits/cli.test.ts): they check that area's rule through a door and share its harness.
// - test/installers stays: it tests installers/ at the repository root, not src/.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';

/** Old folder (or file) → new folder (or file), relative to test/. A folder maps every file beneath it. */
export const FOLDERS = {
  annulments: 'engine/sequences', // src/engine/sequences/annulments.ts
  backup: 'engine/backup',
  certification: 'engine/certification',
  documents: 'engine/documents',
  ecf: 'engine/ecf',
  health: 'engine/health',
  limits: 'engine/limits',
  logs: 'engine/log', // src/engine/log
  reception: 'engine/reception',
  representation: 'engine/representation',
  signing: 'engine/signing',
  store: 'engine/store',
  submission: 'engine/submission',
  taxauth: 'engine/taxauth',
  webhooks: 'engine/webhooks',
  xml: 'engine/xml',
};

/** Folders already where they belong: the doors (cli, http, jobs, sandbox, watch: src/watch once the watcher leaves the engine), installers/, fixtures, the engine tree. */
export const IN_PLACE = ['cli', 'http', 'jobs', 'sandbox', 'watch', 'installers', 'fixtures', 'engine'];
/** Files at test/engine/ root that stay there, as their subject sits at src/engine/ root. */
export const ENGINE_ROOT = ['engine/ids.test.ts', 'engine/paging.test.ts'];

/** The flat test/engine/ folder, file by file, to the area each file tests. */
export const FILES = {
  'engine/api-keys.test.ts': 'engine/tenants/api-keys.test.ts',
  'engine/tenants.test.ts': 'engine/tenants/tenants.test.ts',
  'engine/certificates.test.ts': 'engine/certificates/certificates.test.ts',
  'engine/migrations.test.ts': 'engine/store/migrations.test.ts',
  'engine/outbox.test.ts': 'engine/events/outbox.test.ts',
  'engine/settings.test.ts': 'engine/settings/settings.test.ts',
  'engine/prototype-keys.test.ts': 'engine/settings/prototype-keys.test.ts', // settings and organizations refusing __proto__ keys
  'engine/pump.test.ts': 'engine/work/pump.test.ts',
  'engine/pump-fakes.ts': 'engine/work/pump-fakes.ts',
  'engine/work-queue.test.ts': 'engine/work/work-queue.test.ts',
  // engine/ids.test.ts and engine/paging.test.ts stay: src/engine/ids.ts and paging.ts sit at the engine's root.
};

/** Files outside test/ that name test paths (globs, npm scripts, CI). Mentions in README.md and docs/ are only listed. */
const CONFIGS = ['vitest.config.ts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'];
const CONFIG_DIRS = ['.ci', 'scripts', 'bench'];
const MENTION_ONLY = ['README.md', 'docs'];

const dryRun = process.argv.includes('--dry-run');
const root = process.cwd();
if (!existsSync(join(root, 'test')) || !existsSync(join(root, 'src'))) throw new Error('run from the repository root');

const walk = (dir) =>
  !existsSync(dir)
    ? []
    : readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.name === 'node_modules' ? [] : e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
      );
const rel = (abs) => relative(root, abs).split('\\').join('/');

/** The new place (repository-relative) of a repository-relative path, or the path itself. */
function target(path) {
  if (!path.startsWith('test/')) return path;
  const inTest = path.slice('test/'.length);
  if (FILES[inTest]) return 'test/' + FILES[inTest];
  for (const [from, to] of Object.entries(FOLDERS)) {
    if (inTest === from || inTest.startsWith(from + '/')) return 'test/' + to + inTest.slice(from.length);
  }
  return path;
}

// 1. The moves.
const tracked = new Set(execFileSync('git', ['ls-files', 'test'], { encoding: 'utf8' }).split('\n').filter(Boolean));
const moves = [...tracked].map((from) => [from, target(from)]).filter(([from, to]) => from !== to).sort();
for (const [, to] of moves) {
  if (existsSync(to)) throw new Error(`${to} exists already: resolve by hand, then re-run`);
}
const movedTo = new Map(moves);

// 2. Rewrites, computed from the old tree before anything moves.
const SPECIFIER = [
  /(\bfrom\s*)(['"])(\.{1,2}\/[^'"]*|\.{1,2})\2/g, // import/export ... from '...'
  /(\bimport\s*)(['"])(\.{1,2}\/[^'"]*)\2/g, // import '...'
  /(\bimport\(\s*)(['"])(\.{1,2}\/[^'"]*)\2/g, // import('...')
  /(\bvi\.(?:mock|doMock|unmock|importActual|importMock)\(\s*)(['"])(\.{1,2}\/[^'"]*)\2/g,
  /(\bnew URL\(\s*)(['"])(\.{1,2}\/[^'"]*|\.{1,2})\2(?=\s*,\s*import\.meta\.url)/g,
  /(\bdirname\(fileURLToPath\(import\.meta\.url\)\),\s*)(['"])(\.{1,2}\/[^'"]*|\.{1,2})\2/g,
];

/** Where a written specifier points, as a repository path: `.js` may name the `.ts` file beside it. */
function pointee(fromDir, spec) {
  const abs = rel(resolve(root, fromDir, spec));
  if (tracked.has(abs)) return { path: abs, ext: '' };
  const ts = abs.replace(/\.(m?)js$/, '.$1ts');
  if (ts !== abs && tracked.has(ts)) return { path: ts, ext: abs.slice(abs.lastIndexOf('.')) };
  return { path: abs, ext: '' }; // a folder, or a file outside git (built output): only its own place matters
}

function rewriteFile(file, newFile, text) {
  const oldDir = dirname(file);
  const newDir = dirname(newFile);
  let changed = text;
  for (const re of SPECIFIER) {
    changed = changed.replace(re, (all, lead, quote, spec) => {
      const { path, ext } = pointee(oldDir, spec);
      let dest = movedTo.get(path) ?? path;
      if (ext) dest = dest.replace(/\.(m?)ts$/, ext);
      let out = posix.relative(newDir, dest) || '.';
      if (!out.startsWith('.')) out = './' + out;
      if (spec.endsWith('/') && !out.endsWith('/')) out += '/';
      return out === spec ? all : lead + quote + out + quote;
    });
  }
  return replaceTestPaths(changed);
}

/** Repository-relative test paths and globs in text: 'test/documents/**' → 'test/engine/documents/**'. */
function replaceTestPaths(text) {
  return text.replace(/(?<![\w./-])test\/([\w./{},*-]+)/g, (all, rest) => {
    for (const [from, to] of Object.entries(FILES)) if (rest === from) return 'test/' + to;
    for (const [from, to] of Object.entries(FOLDERS)) {
      if (rest === from || rest.startsWith(from + '/')) return 'test/' + to + rest.slice(from.length);
    }
    return all;
  });
}

const writes = new Map(); // path after the moves → new text
for (const file of [...tracked].filter((f) => /\.(ts|mts|mjs|js)$/.test(f))) {
  const text = readFileSync(file, 'utf8');
  const newFile = movedTo.get(file) ?? file;
  const out = rewriteFile(file, newFile, text);
  if (out !== text) writes.set(newFile, out);
}
const configFiles = [...CONFIGS.filter((f) => existsSync(f)), ...CONFIG_DIRS.flatMap((d) => walk(d).map(rel))].filter(
  (f) => f !== 'scripts/mirror-tests.mjs' && statSync(f).isFile(),
);
for (const file of configFiles) {
  const text = readFileSync(file, 'utf8');
  const out = replaceTestPaths(text);
  if (out !== text) writes.set(file, out);
}

// Paths a resolver cannot see: built from pieces at run time. Listed for a person to check.
const suspects = [];
for (const file of tracked) {
  if (!/\.(ts|mjs)$/.test(file) || !movedTo.has(file)) continue;
  const text = readFileSync(file, 'utf8');
  text.split('\n').forEach((line, i) => {
    if (/__dirname|process\.cwd\(\)|join\([^)]*'\.\.'/.test(line)) suspects.push(`${movedTo.get(file) ?? file}:${i + 1}: ${line.trim()}`);
  });
}
const mentions = MENTION_ONLY.flatMap((p) => (existsSync(p) ? (statSync(p).isDirectory() ? walk(p).map(rel) : [p]) : []))
  .filter((f) => /\.md$/.test(f))
  .flatMap((f) => readFileSync(f, 'utf8').split('\n').flatMap((line, i) => (replaceTestPaths(line) !== line ? [`${f}:${i + 1}`] : [])));

// 3. Apply.
for (const [from, to] of moves) {
  console.log(`move ${from} -> ${to}`);
  if (!dryRun) {
    mkdirSync(dirname(to), { recursive: true });
    execFileSync('git', ['mv', from, to]);
  }
}
for (const [file, text] of [...writes].sort()) {
  console.log(`rewrite ${file}`);
  if (!dryRun) writeFileSync(file, text);
}
// Folders and files this mapping does not know (added by a later change): named, so the mapping can be extended.
for (const file of tracked) {
  const inTest = file.slice('test/'.length);
  const top = inTest.split('/')[0];
  if (!inTest.includes('/')) continue; // shared helpers at test/ root
  if (!(top in FOLDERS) && !IN_PLACE.includes(top)) console.log(`not mapped (folder test/${top}/): ${file}`);
  if (top === 'engine' && inTest.split('/').length === 2 && !FILES[inTest] && !ENGINE_ROOT.includes(inTest)) console.log(`not mapped (flat test/engine/ file): ${file}`);
}
for (const s of suspects) console.log(`check by hand (path built at run time): ${s}`);
for (const m of mentions) console.log(`mention in prose (not rewritten): ${m}`);
console.log(`${moves.length} moved, ${writes.size} rewritten${dryRun ? ' (dry run: nothing changed)' : ''}`);
