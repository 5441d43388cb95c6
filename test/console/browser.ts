import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { openEngine } from '../../src/engine/engine.js';
import type { TenantView } from '../../src/engine/tenants/index.js';
import { seedIssuer, testDataDir } from '../helpers.js';
import { startServe } from '../serve-process.js';

/**
 * The console's browser harness: the real server (the built `ecf serve`,
 * with the built-in sandbox, no jobs) on loopback over a seeded data dir, and
 * Debian's chromium driven headless by playwright-core. One harness per test
 * file (`beforeAll(startConsole)`, `afterAll(h.close)`): launching a browser
 * costs a second or two. Needs `npm run build` (the bundle and the assets).
 */
export const CHROMIUM = process.env.ECF_CHROMIUM ?? '/usr/bin/chromium';
const OUTPUT = join(import.meta.dirname, '..', '..', 'test-output', 'console');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** The two widths every page is looked at: a laptop and a phone. */
export const VIEWPORTS = [
  { width: 1366, height: 768 },
  { width: 390, height: 844 },
] as const;

export interface ConsoleHarness {
  /** e.g. http://127.0.0.1:41234 */
  readonly base: string;
  readonly tenant: TenantView;
  /** One key per role of the seeded tenant (an issuer: certificate and ranges in test). */
  readonly keys: Record<'admin_tenant' | 'emisor' | 'consultor', string>;
  readonly browser: Browser;
  /** The built-in sandbox's URL (POST /_sandbox/script scripts its verdicts). */
  readonly sandboxUrl: string;
  /** A fresh browser context (its own cookies) and page at the laptop width, in Spanish. */
  newPage(options?: { locale?: string }): Promise<Page>;
  /** Signs `page` in with the role's key through the sign-in form; ends on the overview. */
  signIn(page: Page, role?: 'admin_tenant' | 'emisor' | 'consultor'): Promise<void>;
  close(): Promise<void>;
}

export interface ConsoleOptions {
  /** Start the server with its background work (submission to the sandbox, status queries), for flows that need the authority's verdict. */
  readonly jobs?: boolean;
  /** Runs on the seeded data dir before the server starts (its own engine: the store is the server's after). */
  readonly prepare?: (dataDir: string, seeded: { tenant: TenantView; keys: ConsoleHarness['keys'] }) => Promise<void>;
}

export async function startConsole(options: ConsoleOptions = {}): Promise<ConsoleHarness> {
  const dataDir = testDataDir('ecf-console-');
  const engine = await openEngine({ dataDir });
  const { tenant, keys } = await seedIssuer(engine);
  await engine.close();
  await options.prepare?.(dataDir, { tenant, keys: keys as ConsoleHarness['keys'] });
  const served: { child: ChildProcess; base: string; output: () => string } = await startServe(dataDir, { args: options.jobs ? ['--sandbox'] : ['--sandbox', '--no-jobs'] });
  // serve says where its sandbox listens on the line after the one startServe waits for.
  const sandboxAt = () => /the built-in sandbox at (http:\/\/[\w.:]+)/.exec(served.output())?.[1];
  while (!sandboxAt() && served.child.exitCode === null) await once(served.child.stdout!, 'data');
  const sandboxUrl = sandboxAt() ?? '';
  let browser: Browser;
  try {
    // As root (CI containers) chromium's own sandbox cannot start.
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
  } catch (e) {
    served.child.kill('SIGTERM');
    throw e;
  }
  const contexts: BrowserContext[] = [];
  return {
    base: served.base,
    tenant,
    keys: keys as ConsoleHarness['keys'],
    browser,
    sandboxUrl,
    async newPage(options = {}) {
      // bypassCSP: only so axe() can inject its script; the pages' own policy is tested over HTTP.
      const context = await browser.newContext({ viewport: VIEWPORTS[0], locale: options.locale ?? 'es-DO', bypassCSP: true, baseURL: served.base });
      contexts.push(context);
      return context.newPage();
    },
    async signIn(page, role = 'admin_tenant') {
      await page.goto('/console/sign-in');
      await page.getByLabel(/Clave API|API key/).fill(keys[role]);
      await page.getByRole('button', { name: /Entrar|Sign in/ }).click();
      await page.waitForURL(/\/console\/$/);
    },
    async close() {
      await Promise.all(contexts.map((c) => c.close()));
      await browser.close();
      served.child.kill('SIGTERM');
      if (served.child.exitCode === null) await once(served.child, 'exit');
    },
  };
}

/** Writes test-output/console/<name>-<width>.png at each of VIEWPORTS (full page); returns the paths. */
export async function screenshot(page: Page, name: string): Promise<string[]> {
  mkdirSync(OUTPUT, { recursive: true });
  const before = page.viewportSize();
  const paths: string[] = [];
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize(viewport);
    const path = join(OUTPUT, `${name}-${viewport.width}.png`);
    await page.screenshot({ path, fullPage: true });
    paths.push(path);
  }
  if (before) await page.setViewportSize(before);
  return paths;
}

export interface AxeViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly nodes: readonly string[];
}

/** axe-core's serious and critical violations on the page as it is now (WCAG 2.1 A and AA rules, and axe's best practices). */
export async function axe(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const result = await (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
