import type { Agent } from 'undici';
import { undici } from '../net/undici.js';
import { DEFAULT_TLS, tlsConnectOptions, type TaxauthTls } from './tls.js';

let sharedAgent: { readonly key: string; readonly agent: Agent } | undefined;

/**
 * The process-wide dispatcher: keep-alive connections, with the TLS version
 * and ciphers of the settings `taxauth.tls_min_version` and
 * `taxauth.tls_ciphers` (NOTES §3.1: the authority changed its TLS
 * requirements before). Every client reads the settings when it is made
 * (engine.taxauth.client, one query with the URLs), so a changed setting gives a new
 * Agent from the next client on; the old one is left to its keep-alive
 * timeout rather than closed under the calls still using it.
 */
export function taxauthAgent(tls: TaxauthTls = DEFAULT_TLS): Agent {
  const key = `${tls.minVersion}|${tls.ciphers ?? ''}`;
  if (sharedAgent?.key !== key) sharedAgent = { key, agent: buildTaxauthAgent(tls) };
  return sharedAgent.agent;
}

/** An Agent with these TLS options; `extra` adds connect options (a test's `ca`). */
export function buildTaxauthAgent(tls: TaxauthTls, extra: Readonly<Record<string, unknown>> = {}): Agent {
  return new (undici().Agent)({ connect: { ...tlsConnectOptions(tls), ...extra }, keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000 });
}
