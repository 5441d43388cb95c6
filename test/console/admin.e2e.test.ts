import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/engine/clock.js';
import { openEngine } from '../../src/engine/engine.js';
import { issueEcf } from '../../src/engine/ecf/issue.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { buildApp } from '../../src/http/app.js';
import { drive } from '../engine/submission/harness.js';
import { invoice31 } from '../helpers.js';
import { makeIdentity, makeP12 } from '../certs.js';
import { axe, screenshot, startConsole, type ConsoleHarness } from './browser.js';
import { deadDelivery } from './admin-fixtures.js';

/** What the store holds before the server starts: an e-CF the authority rejected, a received one waiting for an answer, a dead webhook delivery. */
const seededFacts: { rejected?: { id: string; encf: string }; receivedEncf?: string } = {};

async function prepare(dataDir: string, { tenant }: { tenant: { id: string; rnc: string } }) {
  const engine = Object.assign(await openEngine({ dataDir, clock: new ManualClock(new Date()) }), {}) as Awaited<ReturnType<typeof openEngine>> & { clock: ManualClock };
  const sandbox = await startSandbox({ clock: engine.clock });
  const app = await buildApp({ engine });
  try {
    // The server runs its own sandbox (--sandbox overrides these); this one plays the authority and a supplier now.
    await setSetting(engine, 'taxauth.url.test', `${sandbox.url}/testecf`);
    await setSetting(engine, 'taxauth.fc_url.test', `${sandbox.url}/testecf`);
    const { ecf } = await issueEcf(engine, tenant.id, { idempotencyKey: 'e2e-rejected', payload: invoice31() });
    sandbox.control.script({ encf: ecf.encf, outcomes: [{ kind: 'reject', messages: [{ code: 1999, value: 'Monto inválido' }] }] });
    await drive(engine, engine.clock);
    seededFacts.rejected = { id: ecf.id, encf: ecf.encf };
    await app.listen({ host: '127.0.0.1', port: 0 });
    const receiverUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/${tenant.id}`;
    const made = sandbox.control.taxpayer.makeEcf({ buyerRnc: tenant.rnc });
    await sandbox.control.taxpayer.sendEcf(receiverUrl, made.xml, { encf: made.encf });
    seededFacts.receivedEncf = made.encf;
    await deadDelivery(engine, tenant.id);
  } finally {
    await app.close();
    await sandbox.close();
    await engine.close();
  }
}

/** In a real browser: the admin pages as an administrator, and as a consultor what is not theirs. */
describe('the console admin pages in a browser', () => {
  let h: ConsoleHarness;
  beforeAll(async () => {
    h = await startConsole({ prepare });
  }, 90_000);
  afterAll(async () => {
    await h?.close();
  });

  it('walks the overview, loads a range, uploads a certificate, retries a dead delivery and reads the certification checklist', { timeout: 60_000 }, async () => {
    const page = await h.newPage();
    await h.signIn(page, 'admin_tenant');
    const main = page.locator('main');
    // The supplier numbers its own e-CF: the received one may carry the same e-NCF as ours.
    expect(await main.locator(`a[href="/console/ecf/${seededFacts.rejected!.id}"]`).textContent()).toBe(seededFacts.rejected!.encf);
    expect(await main.locator('a[href^="/console/received/"]').textContent()).toBe(seededFacts.receivedEncf);
    expect(await main.getByRole('heading', { level: 2 }).allTextContents()).toEqual(
      expect.arrayContaining(['Requieren atención', 'Recibidos sin respuesta', 'DGII', 'Emisión', 'Certificado', 'Secuencias e-NCF', 'Webhooks con fallos']),
    );
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'admin-overview');

    await page.getByRole('navigation').getByRole('link', { name: 'Secuencias' }).click();
    await page.waitForURL(/\/console\/sequences$/);
    // A refusal first: the engine's words beside the field.
    await page.getByLabel('Ambiente').first().selectOption('cert');
    await page.locator('#load-from').fill('500');
    await page.locator('#load-to').fill('100');
    await page.locator('#load-expires').fill('2035-12-31');
    await page.getByRole('button', { name: 'Cargar rango' }).click();
    await expect.poll(() => page.locator('#load-to-error').textContent()).toBe('El número final no puede ser menor que el inicial.');
    expect(await page.locator('#load-to').getAttribute('aria-invalid')).toBe('true');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'admin-sequences-error');
    await page.locator('#load-from').fill('1');
    await page.getByRole('button', { name: 'Cargar rango' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Rango cargado.');
    expect(await page.locator('table').first().textContent()).toContain('E1–100');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'admin-sequences');

    await page.getByRole('navigation').getByRole('link', { name: 'Certificados' }).click();
    await page.waitForURL(/\/console\/certificates$/);
    await page.getByLabel('Archivo .p12 o .pfx').setInputFiles({ name: 'firma.p12', mimeType: 'application/x-pkcs12', buffer: makeP12(makeIdentity({ commonName: 'Firma Nueva', serialNumber: `IDCDO-${h.tenant.rnc}` }), 'clave') });
    await page.getByLabel('Contraseña del archivo').fill('clave');
    await page.getByRole('button', { name: 'Subir' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Certificado cargado.');
    expect(await page.locator('tbody tr').first().textContent()).toContain('Firma Nueva');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'admin-certificates');

    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(/\/console\/webhooks$/);
    expect(await page.locator('tbody').textContent()).toContain('Agotada');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'admin-webhooks-dead');
    await page.getByRole('button', { name: /^Reintentar/ }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe('La entrega vuelve a la cola.');
    expect(await page.locator('tbody').textContent()).toContain('Pendiente');
    await screenshot(page, 'admin-webhooks');

    await page.getByRole('navigation').getByRole('link', { name: 'Certificación' }).click();
    await page.waitForURL(/\/console\/certification$/);
    expect(await page.locator('li.paso').count()).toBe(14);
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'admin-certification');
  });

  it('as consultor: no admin items in the navigation, and a forged POST to load a range is refused', { timeout: 30_000 }, async () => {
    const page = await h.newPage();
    await h.signIn(page, 'consultor');
    expect(await page.getByRole('navigation').getByRole('link').allTextContents()).toEqual(['Inicio', 'e-CF', 'Recibidos']);
    expect(await page.locator('main h2').allTextContents()).not.toContain('Certificado');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'consultor-overview');
    const status = await page.evaluate(async () => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): { getAttribute(a: string): string | null } | null } }).document;
      const csrf = doc.querySelector('meta[name="csrf-token"]')!.getAttribute('content')!;
      const body = new URLSearchParams({ _csrf: csrf, environment: 'cert', type: '32', rangeFrom: '1', rangeTo: '10' });
      return (await fetch('/console/sequences/load', { method: 'POST', body })).status;
    });
    expect(status).toBe(403);
    const sequences = await page.goto('/console/sequences');
    expect(sequences?.status()).toBe(403);
  });
});
