import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axe, screenshot, startConsole, type ConsoleHarness } from './browser.js';

/** In a real browser: sign in (a wrong key first), the overview, English, sign out; accessible at both widths. */
describe('the console in a browser', () => {
  let h: ConsoleHarness;
  beforeAll(async () => {
    h = await startConsole();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('signs in after a wrong key, shows the overview, switches to English and signs out', { timeout: 60_000 }, async () => {
    const page = await h.newPage();
    await page.goto('/console/');
    // No session: the sign-in page, coming back here after.
    await page.waitForURL(/\/console\/sign-in\?next=%2Fconsole%2F$/);
    expect(await page.locator('html').getAttribute('lang')).toBe('es-DO');

    const field = page.getByLabel('Clave API');
    await field.fill('ecf_000000000000_' + 'a'.repeat(43));
    await page.getByRole('button', { name: 'Entrar' }).click();
    // The error beside the field, tied to it for screen readers.
    const error = page.locator('#api-key-error');
    await expect.poll(() => error.textContent()).toBe('La clave API no es válida o fue revocada.');
    expect(await page.getByLabel('Clave API').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByLabel('Clave API').getAttribute('aria-describedby')).toContain('api-key-error');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'sign-in-error');

    await page.getByLabel('Clave API').fill(h.keys.admin_tenant);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(/\/console\/$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Inicio');
    expect(await page.getByRole('status').textContent()).toBe('Sesión iniciada.');
    const header = await page.locator('header').textContent();
    expect(header).toContain(h.tenant.rnc);
    expect(header).toContain('Administrador');
    expect(await page.getByRole('navigation').getByRole('link').allTextContents()).toEqual(['Inicio', 'e-CF', 'Emitir', 'Recibidos', 'Secuencias', 'Certificados', 'Webhooks', 'Certificación']);
    // The built stylesheet is applied (the header band is coloured).
    expect(await page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor")).toBe('rgb(11, 61, 102)');
    expect(await axe(page)).toEqual([]);
    const shots = await screenshot(page, 'overview');
    expect(shots.every((p) => existsSync(p))).toBe(true);

    // The keyboard reaches the skip link first, and it leads to the main content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Saltar al contenido');

    await page.getByLabel('Idioma').selectOption('en');
    await page.getByRole('button', { name: 'Cambiar' }).click();
    await page.waitForURL(/\/console\/$/);
    expect(await page.locator('html').getAttribute('lang')).toBe('en');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Home');
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'overview-en');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/console\/sign-in$/);
    expect(await page.getByRole('status').textContent()).toBe('Signed out.');
    await page.goto('/console/');
    await page.waitForURL(/\/console\/sign-in\?next=/);
  });

  it('refuses a form another site posts to it, and the session is left as it was', { timeout: 60_000 }, async () => {
    const page = await h.newPage();
    await page.goto('/console/');
    await page.getByLabel('Clave API').fill(h.keys.admin_tenant);
    await page.getByRole('button', { name: 'Entrar' }).click();
    await page.waitForURL(/\/console\/$/);
    // Another site (localhost is not 127.0.0.1's site) whose page posts a sign-out form to the console as it loads.
    const evil = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><title>x</title><form method="post" action="${h.base}/console/sign-out"></form><script>document.forms[0].submit()</script>`);
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    try {
      const refused = page.waitForResponse((r) => r.url() === `${h.base}/console/sign-out`);
      await page.goto(`http://localhost:${(evil.address() as AddressInfo).port}/`);
      const response = await refused;
      expect(response.status()).toBe(403);
      expect(await page.locator('main').textContent()).toContain('La solicitud vino de otro sitio y fue rechazada.');
    } finally {
      evil.close();
    }
    // Still signed in: the forged sign-out did nothing.
    await page.goto('/console/');
    await page.waitForURL(/\/console\/$/);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Inicio');
  });
});
