#!/usr/bin/env node
/**
 * Writes the tables of docs/ that the code already holds, so the pages cannot
 * drift from it: the settings catalogue (docs/settings.md) and the contract's
 * role table (docs/contract/authentication.md). Each table sits between
 * `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`; the rest of the
 * page is prose and left alone.
 *
 *   npm run gen:docs                         write the tables
 *   npm run gen:docs -- --check              exit 1 if a committed table is stale
 *
 * It imports the TypeScript sources (through tsx here, through vite in
 * test/docs/generated-tables.test.ts), so it needs no build first.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Where each table's facts live, and the page that shows them. */
const SETTINGS_SOURCE = 'src/engine/settings/catalogue.ts';
const ROLES_SOURCE = 'src/engine/tenants/access.ts';
export const PAGES = { settings: 'docs/settings.md', roles: 'docs/contract/authentication.md' };

/** Markdown cells may not hold a bare pipe or a line break. */
const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
const code = (value) => '`' + JSON.stringify(value) + '`';

/** What a setting accepts, in the words its schema refuses a wrong value with ("must be …"). */
function accepts(schema) {
  const message = schema.errorMessage ?? schema.anyOf?.find((member) => member.errorMessage)?.errorMessage;
  const words = message ? message.replace(/^must be /, '') : '';
  return schema.anyOf?.some((member) => member.type === 'null') && !/\bnull\b/.test(words) ? `${words}, or null` : words;
}

export function settingsTable(settings) {
  const rows = settings.map(
    (s) => `| \`${s.key}\` | ${s.scope} | ${code(s.default)} | ${cell(accepts(s.schema))} | ${cell(s.description)} |`,
  );
  return ['| key | scope | default | accepts | what it does |', '|---|---|---|---|---|', ...rows].join('\n');
}

export function rolesTable(operationRoles, roles) {
  const head = `| operation | ${roles.join(' | ')} |`;
  const rule = `|---|${roles.map(() => ':-:').join('|')}|`;
  const rows = Object.entries(operationRoles).map(
    ([operation, allowed]) => `| \`${operation}\` | ${roles.map((r) => (allowed.includes(r) ? '✓' : '')).join(' | ')} |`,
  );
  return [head, rule, ...rows].join('\n');
}

/** `text` with the block between NAME's markers replaced by `table`; throws if the markers are missing. */
export function withTable(text, name, table) {
  const open = `<!-- generated:${name} -->`;
  const close = `<!-- /generated:${name} -->`;
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`markers ${open} … ${close} not found`);
  return `${text.slice(0, start + open.length)}\n${table}\n${text.slice(end)}`;
}

/** The tables as the code says they are today, by marker name. */
export async function currentTables(root = ROOT) {
  const { SETTINGS } = await import(pathToFileURL(join(root, SETTINGS_SOURCE)).href);
  const { OPERATION_ROLES } = await import(pathToFileURL(join(root, ROLES_SOURCE)).href);
  const { TENANT_ROLES } = await import(pathToFileURL(join(root, 'src/engine/tenants/schemas.ts')).href);
  return { settings: settingsTable(SETTINGS), roles: rolesTable(OPERATION_ROLES, TENANT_ROLES) };
}

/** Each page as it should read: [path, committed text, generated text]. */
export async function pages(root = ROOT) {
  const tables = await currentTables(root);
  return Object.entries(PAGES).map(([name, page]) => {
    const committed = readFileSync(join(root, page), 'utf8');
    return [page, committed, withTable(committed, name, tables[name])];
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [page, committed, wanted] of await pages()) {
    if (committed === wanted) continue;
    if (check) {
      console.error(`${page}: generated table is stale; run npm run gen:docs`);
      stale += 1;
    } else {
      writeFileSync(join(ROOT, page), wanted);
      console.log(`wrote ${page}`);
    }
  }
  process.exit(stale ? 1 : 0);
}
