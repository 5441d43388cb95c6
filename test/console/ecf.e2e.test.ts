import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoice31, tempDir } from '../helpers.js';
import { axe, screenshot, startConsole, type ConsoleHarness } from './browser.js';

/**
 * In a real browser, over the real server with its background work and the
 * built-in sandbox: find an accepted e-CF by its e-NCF, read it, download
 * its PDF; retry one the sandbox rejected without consuming its e-NCF; a
 * consultor sees no retry button and its forged retry is refused.
 */
describe('the e-CF pages in a browser', () => {
  let h: ConsoleHarness;
  beforeAll(async () => {
    h = await startConsole({ jobs: true });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${h.base}/api/v1${path}`, { ...init, headers: { 'x-api-key': h.keys.emisor, 'content-type': 'application/json', ...init.headers } });
    return (await res.json()) as { id: string; encf: string; status: string };
  };
  const issue = (key: string) => api('/ecf', { method: 'POST', headers: { 'idempotency-key': key }, body: JSON.stringify(invoice31()) });
  async function settled(id: string): Promise<string> {
    let status = 'signed';
    await expect.poll(async () => (status = (await api(`/ecf/${id}`)).status), { timeout: 20_000, interval: 200 }).not.toBe('signed');
    return status;
  }

  it('finds an accepted e-CF, opens and downloads it; retries a rejected one; a consultor may not retry', { timeout: 90_000 }, async () => {
    // The sandbox rejects the next document without consuming its e-NCF, then accepts what follows.
    const scripted = await fetch(`${h.sandboxUrl}/_sandbox/script`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ outcomes: [{ kind: 'reject', sequenceUsed: false, messages: [{ code: 1999, value: 'El RNC del comprador no está activo.' }] }] }),
    });
    expect(scripted.ok).toBe(true);
    const rejected = await issue('e2e-rejected');
    expect(await settled(rejected.id)).toBe('rejected');
    const accepted = await issue('e2e-accepted');
    expect(await settled(accepted.id)).toBe('accepted');

    const page = await h.newPage();
    await h.signIn(page, 'emisor');
    await page.getByRole('navigation').getByRole('link', { name: 'e-CF' }).click();
    await page.waitForURL(/\/console\/ecf$/);
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'ecf-list');

    // Find it by e-NCF: the filter is a GET form, so the filtered list is a link.
    await page.getByLabel('Buscar').fill(accepted.encf);
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.waitForURL(new RegExp(`Search=${accepted.encf}`));
    const rows = page.locator('table.ecf-list tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('Aceptado');
    await page.getByRole('link', { name: accepted.encf }).click();
    await page.waitForURL(new RegExp(`/console/ecf/${accepted.id}$`));
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`e-CF ${accepted.encf}`);
    expect(await page.locator('.ecf-status').textContent()).toContain('Aceptado');
    expect(await page.locator('main').textContent()).toContain('Cemento gris');
    expect(await page.locator(`iframe[src="/console/ecf/${accepted.id}/pdf?layout=letter"]`).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Reenviar a la DGII' }).count()).toBe(0);
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'ecf-detail');

    // Its PDF, downloaded: a PDF whose text holds the e-NCF.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Descargar PDF carta' }).click()]);
    const file = join(tempDir('ecf-e2e-pdf-'), 'ecf.pdf');
    await download.saveAs(file);
    expect(readFileSync(file).subarray(0, 4).toString()).toBe('%PDF');
    expect(execFileSync('pdftotext', [file, '-']).toString()).toContain(accepted.encf);

    // The rejected one: the authority's message, and a retry (the sandbox accepts the same XML this time).
    await page.goto(`/console/ecf/${rejected.id}`);
    expect(await page.locator('.ecf-status').textContent()).toContain('Rechazado');
    expect(await page.locator('main').textContent()).toContain('El RNC del comprador no está activo.');
    expect(await page.locator('main').textContent()).toContain('La DGII no consumió el e-NCF');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'ecf-detail-rejected');
    // A consultor: the rejected page, retryable, shows it no retry button; its forged POST is refused.
    const reader = await h.newPage();
    await h.signIn(reader, 'consultor');
    await reader.goto(`/console/ecf/${rejected.id}`);
    expect(await reader.getByRole('button', { name: 'Reenviar a la DGII' }).count()).toBe(0);
    const csrf = await reader.locator('meta[name="csrf-token"]').getAttribute('content');
    const forged = await reader.request.post(`/console/ecf/${rejected.id}/retry`, { form: { _csrf: csrf! }, headers: { origin: h.base } });
    expect(forged.status()).toBe(403);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Reenviar a la DGII' }).click();
    await page.waitForURL(new RegExp(`/console/ecf/${rejected.id}$`));
    expect(await page.getByRole('status').textContent()).toContain('e-CF reenviado');
    // The page's status follows the sandbox's new verdict while it is open (data-poll).
    await expect.poll(() => page.locator('.ecf-status').textContent(), { timeout: 20_000 }).toContain('Aceptado');

  });
});
