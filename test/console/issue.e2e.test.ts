import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { axe, screenshot, startConsole, type ConsoleHarness } from './browser.js';

/**
 * In a real browser: issue an e-CF from the form (an error first, beside its
 * field; totals as typed), then answer a received e-CF the sandbox's
 * taxpayer sent to the served receiver; a consultor only reads.
 */
describe('issuing and the received e-CF in a browser', () => {
  let h: ConsoleHarness;
  let taxpayer: RunningSandbox;
  beforeAll(async () => {
    [h, taxpayer] = await Promise.all([startConsole(), startSandbox({ host: '127.0.0.1', port: 0 })]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([h?.close(), taxpayer?.close()]);
  });

  /** The sandbox's taxpayer sends a fresh e-CF to the tenant's receiver (as another issuer would). */
  const receive = async () => {
    const res = await fetch(`${taxpayer.url}/_sandbox/taxpayer/send-ecf`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ receiverUrl: `${h.base}/${h.tenant.id}`, buyerRnc: h.tenant.rnc }),
    });
    const sent = (await res.json()) as { encf: string; status: number };
    expect(sent.status).toBe(200);
    return sent.encf;
  };

  it('issues from the form after fixing a field error, with totals as typed', { timeout: 60_000 }, async () => {
    const page = await h.newPage();
    await h.signIn(page, 'emisor');
    await page.getByRole('navigation').getByRole('link', { name: 'Emitir' }).click();
    await page.waitForURL(/\/console\/issue$/);

    await page.getByLabel('RNC o cédula del comprador').fill('12');
    await page.getByLabel('Nombre o razón social').fill('Constructora Ejemplo SRL');
    const line = page.getByRole('group', { name: 'Línea 1' });
    await line.getByLabel('Descripción').fill('Cemento gris');
    await line.getByLabel('Cantidad').fill('10');
    await page.getByRole('button', { name: 'Emitir e-CF' }).click();
    await page.waitForLoadState('load');

    // The server's answer: each error beside its field, tied to it.
    const price = page.getByRole('group', { name: 'Línea 1' }).getByLabel('Precio unitario');
    expect(await price.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator(`#${await price.getAttribute('aria-describedby')}`).textContent()).toBe('Es obligatorio.');
    const rnc = page.getByLabel('RNC o cédula del comprador');
    expect(await rnc.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#f-buyer-rnc-error').textContent()).toMatch(/^Debe ser un RNC/);
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'issue-form-error');
    // Readable on a phone: nothing wider than the screen (a fieldset grows to its widest select otherwise).
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1366, height: 768 });

    await rnc.fill('131880681');
    await price.fill('350.00');
    // The preview (the engine's validation) clears the errors and shows the totals: 3,500 + 18 % = 4,130.
    await expect.poll(() => page.locator('[data-total="montoTotal"]').textContent(), { timeout: 10_000 }).toMatch(/4,130\.00/);
    expect(await page.locator('[data-total="totalItbis"]').textContent()).toMatch(/630\.00/);
    await expect.poll(() => price.getAttribute('aria-invalid')).toBeNull();
    expect(await page.locator('#f-buyer-rnc-error').isVisible()).toBe(false);
    expect(await page.locator('[data-top-errors]').isVisible()).toBe(false);

    // A line added in place (no round trip), then a second one typed in.
    await page.getByRole('button', { name: 'Agregar línea' }).click();
    expect(await page.locator('[data-line]').count()).toBe(4);
    expect(page.url()).toMatch(/\/console\/issue$/);
    const second = page.getByRole('group', { name: 'Línea 2' });
    await second.getByLabel('Descripción').fill('Varilla 3/8');
    await second.getByLabel('Precio unitario').fill('100');
    // 4,130 + 118 = 4,248.
    await expect.poll(() => page.locator('[data-total="montoTotal"]').textContent(), { timeout: 10_000 }).toMatch(/4,248\.00/);
    await screenshot(page, 'issue-form');

    await page.getByRole('button', { name: 'Emitir e-CF' }).click();
    await page.waitForURL(/\/console\/ecf\/[0-9a-f-]{36}$/);
  });

  it('answers a received e-CF; a consultor sees no answer buttons and its forged answer is refused', { timeout: 60_000 }, async () => {
    const first = await receive();
    const second = await receive();
    const page = await h.newPage();
    await h.signIn(page, 'admin_tenant');
    await page.getByRole('navigation').getByRole('link', { name: 'Recibidos' }).click();
    await page.waitForURL(/\/console\/received$/);
    await page.getByLabel('Aprobación comercial').selectOption('pending');
    await page.getByRole('button', { name: 'Filtrar', exact: true }).click();
    await page.waitForURL(/approval=pending/);
    expect(await page.getByRole('link', { name: first }).count()).toBe(1);
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'received-inbox');

    await page.getByRole('link', { name: first }).click();
    await page.waitForURL(/\/console\/received\/[0-9a-f-]{36}$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`e-CF ${first}`);
    expect(await page.getByRole('heading', { name: 'Líneas' }).count()).toBe(1);
    expect(await axe(page)).toEqual([]);
    // On a phone the lines table scrolls sideways: a region the keyboard can reach and scroll.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await axe(page)).toEqual([]);
    await page.setViewportSize({ width: 1366, height: 768 });
    await screenshot(page, 'received-document');

    // Rejecting without a reason: the error beside the reason.
    await page.getByRole('button', { name: 'Rechazar' }).click();
    await page.waitForLoadState('load');
    expect(await page.getByLabel('Motivo del rechazo').getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('button', { name: 'Aprobar' }).click();
    await page.waitForURL(/\/console\/received\/[0-9a-f-]{36}$/);
    expect(await page.getByRole('status').textContent()).toContain('Respuesta comercial firmada');
    expect(await page.locator('[data-answer]').textContent()).toContain('Aceptado');
    expect(await page.getByRole('button', { name: 'Aprobar' }).count()).toBe(0);
    await screenshot(page, 'received-answered');

    const reader = await h.newPage();
    await h.signIn(reader, 'consultor');
    await reader.goto('/console/received?approval=pending');
    await reader.getByRole('link', { name: second }).click();
    await reader.waitForURL(/\/console\/received\/[0-9a-f-]{36}$/);
    expect(await reader.getByRole('button', { name: /Aprobar|Rechazar/ }).count()).toBe(0);
    const csrf = await reader.locator('meta[name="csrf-token"]').getAttribute('content');
    const forged = await reader.request.post(`${reader.url()}/answer`, { form: { _csrf: csrf!, decision: 'accepted' } });
    expect(forged.status()).toBe(403);
    await reader.reload();
    expect(await reader.locator('[data-answer]').count()).toBe(0);
  });
});
