import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import Fastify, { type LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { setSetting } from '../../src/engine/settings/settings.js';
import { revokeApiKey } from '../../src/engine/tenants/api-keys.js';
import { IDLE_MS } from '../../src/engine/console-sessions/index.js';
import consolePlugin from '../../src/console/plugin.js';
import { mayPerform } from '../../src/console/access.js';
import { organizationKey, seedOrganization, seedTenant, tempDir, testEngine } from '../helpers.js';
import { FORM, form, signIn } from './inject.js';

type App = Awaited<ReturnType<typeof buildApp>>;
const apps: App[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});


async function setup() {
  const engine = await testEngine();
  const { tenant, keys } = await seedTenant(engine);
  const app = await buildApp({ engine });
  apps.push(app);
  return { engine, tenant, keys, app };
}

/** The Set-Cookie lines of a response, by cookie name. */
function setCookies(res: LightMyRequestResponse): Record<string, string> {
  const raw = res.headers['set-cookie'];
  const lines = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return Object.fromEntries(lines.map((l) => [l.split('=')[0]!, l]));
}

/** Signs in over HTTP; returns the cookie header to send and the page's CSRF token. */
describe('the console door', () => {
  it('sends a browser without a session to the sign-in page (GET) or answers a 401 page (POST), never problem JSON', async () => {
    const { app } = await setup();
    const get = await app.inject({ method: 'GET', url: '/console/?x=1' });
    expect(get.statusCode).toBe(303);
    expect(get.headers.location).toBe(`/console/sign-in?next=${encodeURIComponent('/console/?x=1')}`);
    const post = await app.inject({ method: 'POST', url: '/console/sign-out', headers: FORM, payload: form({ _csrf: 'x' }) });
    expect(post.statusCode).toBe(401);
    expect(post.headers['content-type']).toContain('text/html');
    expect(post.body).toContain('href="/console/sign-in"');
    const missing = await app.inject({ method: 'GET', url: '/console/no-such-page' });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('text/html');
    expect(missing.body).toMatch(/<html lang="es-DO">/);
    // The API keeps its problem details.
    const api = await app.inject({ method: 'GET', url: '/api/v1/no-such-route' });
    expect(api.headers['content-type']).toContain('application/problem+json');
  });

  it('signs in with a tenant key: the cookie is HttpOnly, SameSite=Strict, Path=/console, Max-Age to the absolute expiry, Secure only under TLS', async () => {
    const { app, tenant, keys, engine } = await setup();
    const { line, page } = await signIn(app, keys.emisor);
    expect(line).toMatch(/^ecf_console=[A-Za-z0-9_-]{43}; /);
    expect(line).toContain('; HttpOnly');
    expect(line).toContain('; SameSite=Strict');
    expect(line).toContain('; Path=/console');
    expect(line).toContain('; Max-Age=43200');
    expect(line).not.toContain('Secure');
    expect(page.body).toContain(tenant.rnc);
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    // Under TLS (ecf serve --tls-cert) the cookie is Secure too.
    const tls = selfSigned(tempDir('ecf-console-tls-'));
    const secure = await buildApp({ engine, https: tls });
    apps.push(secure);
    const address = await secure.listen({ host: '127.0.0.1', port: 0 });
    const res = await httpsPost(`${address}/console/sign-in`, form({ apiKey: keys.emisor }), tls.cert);
    expect(res.status).toBe(303);
    expect(res.cookies.find((c) => c.startsWith('ecf_console='))).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
  });

  it('shows the wrong key beside the field, and explains an organization key', async () => {
    const { app, engine } = await setup();
    const wrong = await app.inject({ method: 'POST', url: '/console/sign-in', headers: FORM, payload: form({ apiKey: 'ecf_000000000000_' + 'a'.repeat(43) }) });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toMatch(/<p class="error" id="api-key-error">La clave API no es válida o fue revocada.<\/p>/);
    expect(wrong.body).toMatch(/id="api-key"[^>]*aria-describedby="api-key-hint api-key-error"[^>]*aria-invalid="true"/);
    expect(setCookies(wrong).ecf_console).toBeUndefined();
    const org = await seedOrganization(engine);
    const orgKey = await organizationKey(engine, org.organization.id, org.owner.id);
    const refused = await app.inject({ method: 'POST', url: '/console/sign-in', headers: FORM, payload: form({ apiKey: orgKey }) });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('clave de organización');
    expect(await engine.db.selectFrom('console_sessions').selectAll().execute()).toEqual([]);
  });

  it('refuses a POST without or with a wrong CSRF token (403) and changes nothing; the right token signs out', async () => {
    const { app, keys } = await setup();
    const { cookie, csrf } = await signIn(app, keys.emisor);
    for (const payload of [form({}), form({ _csrf: 'wrong' }), form({ _csrf: csrf.slice(1) })]) {
      const res = await app.inject({ method: 'POST', url: '/console/sign-out', headers: { ...FORM, cookie }, payload });
      expect(res.statusCode).toBe(403);
      expect(res.body).toContain('El formulario venció');
    }
    expect((await app.inject({ method: 'GET', url: '/console/', headers: { cookie } })).statusCode).toBe(200);
    // The header works as the field does (console.js).
    const out = await app.inject({ method: 'POST', url: '/console/sign-out', headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.statusCode).toBe(303);
    expect(setCookies(out).ecf_console).toContain('Max-Age=0');
    expect((await app.inject({ method: 'GET', url: '/console/', headers: { cookie } })).statusCode).toBe(303);
  });

  it('refuses a cross-site or foreign-origin POST with a 403 page, sign-in included', async () => {
    const { app, keys } = await setup();
    const { cookie, csrf } = await signIn(app, keys.emisor);
    const foreign = [{ origin: 'https://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }];
    for (const headers of foreign) {
      const out = await app.inject({ method: 'POST', url: '/console/sign-out', headers: { ...FORM, cookie, ...headers }, payload: form({ _csrf: csrf }) });
      expect(out.statusCode, JSON.stringify(headers)).toBe(403);
      expect(out.body).toContain('vino de otro sitio');
      const signIn = await app.inject({ method: 'POST', url: '/console/sign-in', headers: { ...FORM, ...headers }, payload: form({ apiKey: keys.emisor }) });
      expect(signIn.statusCode, JSON.stringify(headers)).toBe(403);
      expect(setCookies(signIn).ecf_console).toBeUndefined();
    }
    // Its own origin (and same-origin fetch metadata) passes.
    const own = await app.inject({ method: 'POST', url: '/console/sign-out', headers: { ...FORM, cookie, origin: 'http://localhost:80', host: 'localhost:80', 'sec-fetch-site': 'same-origin' }, payload: form({ _csrf: csrf }) });
    expect(own.statusCode).toBe(303);
  });

  it('follows console.exposure: loopback (default) only from this machine, off to no one, public to anyone; refused callers get 404', async () => {
    const { app, engine } = await setup();
    const from = (remoteAddress: string) => app.inject({ method: 'GET', url: '/console/sign-in', remoteAddress });
    expect((await from('127.0.0.1')).statusCode).toBe(200);
    expect((await from('::1')).statusCode).toBe(200);
    expect((await from('192.168.1.20')).statusCode).toBe(404);
    // The same answer as a path that does not exist, for a console page and an unknown console path alike.
    const nowhere = await app.inject({ method: 'GET', url: '/nowhere', remoteAddress: '192.168.1.20' });
    for (const url of ['/console/sign-in', '/console/no-such-page', '/console/']) {
      const hidden = await app.inject({ method: 'GET', url, remoteAddress: '192.168.1.20' });
      expect(hidden.statusCode, url).toBe(404);
      expect(hidden.headers['content-type'], url).toBe(nowhere.headers['content-type']);
      expect(hidden.json(), url).toMatchObject({ code: 'Http.RouteNotFound', status: 404, title: nowhere.json().title });
    }
    expect((await app.inject({ method: 'GET', url: '/console/sign-in', remoteAddress: '192.168.1.20', headers: { 'x-forwarded-for': '127.0.0.1' } })).statusCode).toBe(404);
    await setSetting(engine, 'console.exposure', 'off');
    expect((await from('127.0.0.1')).statusCode).toBe(404);
    await setSetting(engine, 'console.exposure', 'public');
    expect((await from('203.0.113.9')).statusCode).toBe(200);
  });

  it('chooses the language: the ecf_lang cookie, else Accept-Language, else Spanish; POST /console/language sets the cookie', async () => {
    const { app } = await setup();
    const lang = async (headers: Record<string, string>) => /<html lang="([^"]+)">/.exec((await app.inject({ method: 'GET', url: '/console/sign-in', headers })).body)![1];
    expect(await lang({})).toBe('es-DO');
    expect(await lang({ 'accept-language': 'en-US,en;q=0.9' })).toBe('en');
    expect(await lang({ 'accept-language': 'fr-FR, es;q=0.5, en;q=0.8' })).toBe('en');
    expect(await lang({ 'accept-language': 'fr-FR' })).toBe('es-DO');
    expect(await lang({ 'accept-language': 'en', cookie: 'ecf_lang=es' })).toBe('es-DO');
    const set = await app.inject({ method: 'POST', url: '/console/language', headers: FORM, payload: form({ lang: 'en', next: '/console/sign-in' }) });
    expect(set.statusCode).toBe(303);
    expect(set.headers.location).toBe('/console/sign-in');
    const line = setCookies(set).ecf_lang!;
    expect(line).toMatch(/^ecf_lang=en; Path=\/console; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    const page = await app.inject({ method: 'GET', url: '/console/sign-in', headers: { cookie: line.split(';')[0]! } });
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('API key');
  });

  it('follows only a local next: an off-site one lands on the overview', async () => {
    const { app, keys } = await setup();
    for (const next of ['https://evil.example/', '//evil.example/console', '/\\evil.example', '/console//evil.example', 'javascript:alert(1)', '/api/v1/ecf']) {
      const res = await app.inject({ method: 'POST', url: '/console/sign-in', headers: FORM, payload: form({ apiKey: keys.consultor, next }) });
      expect(res.headers.location, next).toBe('/console/');
      const lang = await app.inject({ method: 'POST', url: '/console/language', headers: FORM, payload: form({ lang: 'en', next }) });
      expect(lang.headers.location, next).toBe('/console/');
    }
    const local = await app.inject({ method: 'POST', url: '/console/sign-in', headers: FORM, payload: form({ apiKey: keys.consultor, next: '/console/ecf?Status=rejected' }) });
    expect(local.headers.location).toBe('/console/ecf?Status=rejected');
  });

  it("refuses a route's operation to a role the role table does not allow, with a 403 page; mayPerform agrees with it", async () => {
    const engine = await testEngine();
    const { keys } = await seedTenant(engine);
    // A page as the other engineers write them: a route in the console's context declaring its operation.
    const app = Fastify();
    apps.push(app as unknown as App);
    app.decorate('engine', engine);
    app.decorateRequest('tenantId', '');
    await app.register(
      async (scope) => {
        await consolePlugin(scope);
        scope.get('/probe', { config: { consoleAccess: 'certificates.list' } }, async (request) => `tenant ${request.tenantId}`);
      },
      { prefix: '/console' },
    );
    const { cookie } = await signIn(app as unknown as App, keys.emisor);
    const refused = await app.inject({ method: 'GET', url: '/console/probe', headers: { cookie } });
    expect(refused.statusCode).toBe(403);
    expect(refused.headers['content-type']).toContain('text/html');
    expect(refused.body).toContain('No tiene permiso para esto.');
    expect(refused.body).toContain('admin_tenant');
    const admin = await signIn(app as unknown as App, keys.admin_tenant);
    const allowed = await app.inject({ method: 'GET', url: '/console/probe', headers: { cookie: admin.cookie } });
    expect(allowed.statusCode).toBe(200);
    expect(mayPerform('emisor', 'certificates.list')).toBe(false);
    expect(mayPerform('admin_tenant', 'certificates.list')).toBe(true);
    expect(mayPerform('consultor', 'ecf.list')).toBe(true);
    expect(mayPerform('consultor', 'ecf.issue')).toBe(false);
  });

  it('shows navigation by role; an idle session or a revoked key ends the session', async () => {
    const { app, engine, keys } = await setup();
    const consultor = await signIn(app, keys.consultor);
    expect(consultor.page.body).toContain('href="/console/ecf"');
    expect(consultor.page.body).not.toContain('href="/console/issue"');
    expect(consultor.page.body).not.toContain('href="/console/certificates"');
    const admin = await signIn(app, keys.admin_tenant);
    expect(admin.page.body).toContain('href="/console/certificates"');
    expect(admin.page.body).toContain('href="/console/issue"');
    const emisor = await signIn(app, keys.emisor);
    expect(emisor.page.body).toContain('href="/console/issue"');
    expect(emisor.page.body).not.toContain('href="/console/certificates"');

    engine.clock.advance(IDLE_MS);
    expect((await app.inject({ method: 'GET', url: '/console/', headers: { cookie: emisor.cookie } })).statusCode).toBe(303);
    const again = await signIn(app, keys.emisor);
    const [key] = (await engine.db.selectFrom('api_keys').select('id').where('role', '=', 'emisor').execute()).map((r) => r.id);
    await revokeApiKey(engine, key!);
    expect((await app.inject({ method: 'GET', url: '/console/', headers: { cookie: again.cookie } })).statusCode).toBe(303);
  });
});

/** A self-signed certificate for 127.0.0.1 and its key (PEM), made by openssl. */
function selfSigned(dir: string): { key: Buffer; cert: Buffer } {
  const key = join(dir, 'server.key');
  const cert = join(dir, 'server.crt');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '30', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

function httpsPost(url: string, body: string, ca: Buffer): Promise<{ status: number; cookies: string[] }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { method: 'POST', ca, headers: FORM }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, cookies: res.headers['set-cookie'] ?? [] }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
