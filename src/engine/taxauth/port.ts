import type { Environment } from '../schema-types.js';
import type { TaxauthClient } from './client.js';
import type { TaxauthTls } from './tls.js';

/*
 * The engine's port to the tax authority (`engine.taxauth`), made once when
 * the engine opens (taxauth-port.ts). Types only, and none of them name the
 * Engine: engine-types.ts imports this file.
 */

export interface EnvironmentUrls {
  /** e.g. https://ecf.dgii.gov.do/testecf */
  readonly baseUrl: string;
  /** e.g. https://fc.dgii.gov.do/testecf */
  readonly fcUrl: string;
}

export interface ClientSettings extends EnvironmentUrls {
  readonly timeoutMs: number;
  /** taxauth.tls_min_version and taxauth.tls_ciphers. */
  readonly tls: TaxauthTls;
}

/** The status host's base URL, timeout and TLS. */
export interface StatusHostSettings {
  readonly url: string;
  readonly timeoutMs: number;
  readonly tls: TaxauthTls;
}

/**
 * Every method reads the platform settings when called (one query), so a
 * changed URL, timeout or TLS setting applies from the next call on.
 */
export interface TaxauthPort {
  /** The client of one environment as the platform settings configure it. */
  client(environment: Environment): Promise<TaxauthClient>;
  /** The URLs, timeout and TLS of an environment, from the settings or the defaults. */
  settings(environment: Environment): Promise<ClientSettings>;
  /** The status host (`taxauth.status_url`), its timeout and TLS. */
  statusHost(): Promise<StatusHostSettings>;
  /**
   * Calls `fn` with the tenant's token in the environment, from the process's
   * one token cache: a 401 renews it once, then `fn` is called again. The
   * only way an area gets a token: none keeps a cache of its own.
   */
  withToken<T>(tenantId: string, environment: Environment, fn: (token: string) => Promise<T>): Promise<T>;
}
