import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { signingCredentials } from '../../../src/engine/certificates/certificates.js';
import { harness } from '../submission/harness.js';

const apps: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

/**
 * The engine's API listening on loopback beside the sandbox, which plays the
 * authority and another taxpayer (RNC 131880681, the buyer of invoice31).
 */
export async function receptionHarness() {
  const h = await harness();
  await h.app.listen({ host: '127.0.0.1', port: 0 });
  apps.push(h.app);
  const url = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  const receiverUrl = `${url}/${h.tenant.id}`;
  const certificatePem = (await signingCredentials(h.engine, h.tenant.id)).certificate.toString();
  /** The sandbox taxpayer sends a fresh e-CF to the tenant. */
  const sendFresh = async (options: { buyerRnc?: string; authenticate?: boolean; mutate?: (xml: string) => string; payload?: Record<string, unknown> } = {}) => {
    const made = h.sandbox.control.taxpayer.makeEcf({ buyerRnc: options.buyerRnc ?? h.tenant.rnc, ...(options.payload && { payload: options.payload }) });
    const xml = options.mutate ? options.mutate(made.xml) : made.xml;
    const answer = await h.sandbox.control.taxpayer.sendEcf(receiverUrl, xml, { encf: made.encf, ...(options.authenticate !== undefined && { authenticate: options.authenticate }) });
    return { ...made, xml, answer };
  };
  const api = async (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown, role: 'admin_tenant' | 'emisor' | 'consultor' = 'admin_tenant') => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { 'x-api-key': h.keys[role], ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    return { status: res.status, headers: res.headers, json: async (): Promise<any> => res.json() };
  };
  return { ...h, url, receiverUrl, certificatePem, sendFresh, api };
}
