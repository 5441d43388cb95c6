import type { Engine } from '../engine-types.js';
import type { Environment } from '../schema-types.js';
import { getSettings } from '../settings/settings.js';
import type { SettingKey } from '../settings/catalogue.js';
import { tlsFromSettings } from './tls.js';
import type { ClientSettings, EnvironmentUrls, StatusHostSettings } from './port.js';

export type { ClientSettings, EnvironmentUrls, StatusHostSettings };

/**
 * Where each environment of the tax authority lives (NOTES §1): the main
 * host serves authentication, e-CF reception and the queries; the fc host
 * serves RFCE reception. Paths are lower-case, as NOTES §1 recommends.
 * Every URL can be replaced by a platform setting (`taxauth.url.<env>`,
 * `taxauth.fc_url.<env>`): tests and the sandbox point them at loopback.
 */

/** The path segment of each environment. */
export const ENVIRONMENT_SEGMENT: Readonly<Record<Environment, string>> = {
  test: 'testecf',
  cert: 'certecf',
  production: 'ecf',
};

export const DEFAULT_URLS: Readonly<Record<Environment, EnvironmentUrls>> = {
  test: { baseUrl: 'https://ecf.dgii.gov.do/testecf', fcUrl: 'https://fc.dgii.gov.do/testecf' },
  cert: { baseUrl: 'https://ecf.dgii.gov.do/certecf', fcUrl: 'https://fc.dgii.gov.do/certecf' },
  production: { baseUrl: 'https://ecf.dgii.gov.do/ecf', fcUrl: 'https://fc.dgii.gov.do/ecf' },
};

export const DEFAULT_TIMEOUT_MS = 15_000;

/** The authority's service-status host (NOTES §1, §3). */
export const DEFAULT_STATUS_URL = 'https://statusecf.dgii.gov.do';

const trimSlash = (url: string): string => url.replace(/\/+$/, '');

/**
 * The URLs and timeout of an environment, from the settings or the defaults.
 * `sandboxUrl` is ECF_TAXAUTH_SANDBOX_URL as the engine read it when it opened.
 */
export async function readClientSettings(engine: Engine, environment: Environment, sandboxUrl: string | undefined): Promise<ClientSettings> {
  const urlKey = `taxauth.url.${environment}` as SettingKey;
  const fcKey = `taxauth.fc_url.${environment}` as SettingKey;
  const values = await getSettings(engine, [urlKey, fcKey, 'taxauth.timeout_ms', 'taxauth.tls_min_version', 'taxauth.tls_ciphers'], PLATFORM_SCOPE);
  const defaults = DEFAULT_URLS[environment];
  const tls = tlsFromSettings(values['taxauth.tls_min_version'], values['taxauth.tls_ciphers']);
  // `ecf serve --sandbox` points every environment of this process at its built-in sandbox.
  if (sandboxUrl) {
    const base = `${trimSlash(sandboxUrl)}/${ENVIRONMENT_SEGMENT[environment]}`;
    const timeout = values['taxauth.timeout_ms'];
    return { baseUrl: base, fcUrl: base, timeoutMs: typeof timeout === 'number' && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS, tls };
  }
  const url = values[urlKey];
  const fc = values[fcKey];
  const timeout = values['taxauth.timeout_ms'];
  return {
    baseUrl: trimSlash(typeof url === 'string' && url ? url : defaults.baseUrl),
    fcUrl: trimSlash(typeof fc === 'string' && fc ? fc : defaults.fcUrl),
    timeoutMs: typeof timeout === 'number' && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
    tls,
  };
}

/** The status host's base URL (`taxauth.status_url`, or the sandbox's own under `ecf serve --sandbox`), the timeout and TLS. */
export async function readStatusHostSettings(engine: Engine, sandboxUrl: string | undefined): Promise<StatusHostSettings> {
  const values = await getSettings(engine, ['taxauth.status_url', 'taxauth.timeout_ms', 'taxauth.tls_min_version', 'taxauth.tls_ciphers'], PLATFORM_SCOPE);
  const configured = values['taxauth.status_url'];
  const timeout = values['taxauth.timeout_ms'];
  return {
    url: trimSlash(sandboxUrl ? sandboxUrl : typeof configured === 'string' && configured ? configured : DEFAULT_STATUS_URL),
    timeoutMs: typeof timeout === 'number' && timeout > 0 ? timeout : DEFAULT_TIMEOUT_MS,
    tls: tlsFromSettings(values['taxauth.tls_min_version'], values['taxauth.tls_ciphers']),
  };
}

/**
 * The scope getSettings is asked for. These settings are platform-only, so
 * it reads the platform value (or the default) whatever scope it is given;
 * one query instead of three.
 */
const PLATFORM_SCOPE = 'platform';
