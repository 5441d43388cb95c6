import { FormatRegistry, Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable } from '../schema-types.js';
import { isCidr } from '../net/addresses.js';
import { LayoutSchema } from './layouts.js';

FormatRegistry.Set('cidr', isCidr);

/**
 * Runtime settings the appliance knows, with their type and default.
 * `tenant` settings have a platform-wide value that each tenant may override;
 * `platform` settings exist once for the whole appliance.
 */
export interface SettingDefinition {
  readonly key: string;
  readonly scope: 'platform' | 'tenant';
  readonly schema: TSchema;
  readonly default: unknown;
  readonly description: string;
}

/** One setting: its schema is the one rule for what may be stored and the type every reader gets; the default must fit it. */
const define = <const K extends string, S extends TSchema>(
  key: K,
  scope: SettingDefinition['scope'],
  schema: S,
  defaultValue: Static<S>,
  description: string,
) => ({ key, scope, schema, default: defaultValue, description }) satisfies SettingDefinition;

/** A base URL of one of the authority's hosts, or null for the authority's own. */
const authorityUrl = Nullable(
  Type.String({
    pattern: '^https?://[^\\s/?#]+(?:/[^\\s?#]*)?$',
    errorMessage: `must be an http(s) URL without query or fragment, or null for the authority's own`,
  }),
);

/** A base URL of the tax authority for one environment; null means the authority's own (engine/taxauth/environments.ts). */
const taxauthUrl = <const K extends string>(key: K, host: 'main' | 'fc', environment: 'test' | 'cert' | 'production') => {
  const segment = { test: 'testecf', cert: 'certecf', production: 'ecf' }[environment];
  return define(
    key,
    'platform',
    authorityUrl,
    null,
    host === 'main'
      ? `Base URL of the tax authority's main host in the ${environment} environment (seed, token, e-CF reception, queries); null uses the authority's own, https://ecf.dgii.gov.do/${segment}.`
      : `Base URL of the tax authority's consumer-invoice host in the ${environment} environment (RFCE reception); null uses the authority's own, https://fc.dgii.gov.do/${segment}.`,
  );
};

export const SETTINGS = [
  define(
    'sequences.mode',
    'tenant',
    Type.Union([Type.Literal('managed'), Type.Literal('external')], {
      errorMessage: 'must be managed or external',
    }),
    'managed',
    'managed: the appliance assigns e-NCF numbers from loaded ranges; external: the caller sends encf and sequenceExpiresOn.',
  ),
  define(
    'sequences.low_stock_fraction',
    'tenant',
    Type.Number({ exclusiveMinimum: 0, maximum: 1, errorMessage: 'must be a number above 0 and at most 1' }),
    0.2,
    'A range is low on stock when remaining/capacity is at or below this fraction.',
  ),
  define(
    'representation.default_layout',
    'tenant',
    LayoutSchema,
    'letter',
    'Layout of the printed representation (PDF) when the request does not choose one: letter (8.5 × 11 in), pos (80 mm roll) or pos58 (58 mm roll).',
  ),
  define(
    'retry.max',
    'tenant',
    Type.Integer({ minimum: 0, maximum: 20, errorMessage: 'must be an integer from 0 to 20' }),
    3,
    'Automatic resends of the same signed XML after a transient authority rejection.',
  ),
  define(
    'alerts.rejection_rate_threshold_pct',
    'tenant',
    Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 100, errorMessage: 'must be a percentage above 0 and at most 100, or null' })),
    null,
    'Share of rejected e-CF in the last hour (percent) that raises alert.rejection_spike; null turns it off.',
  ),
  define(
    'alerts.no_emission_hours',
    'tenant',
    Nullable(Type.Number({ exclusiveMinimum: 0, maximum: 720, errorMessage: 'must be a number of hours above 0 and at most 720, or null' })),
    null,
    'Business hours without any e-CF issued before alert.emission_silence; null turns it off.',
  ),
  define(
    'alerts.business_hours',
    'tenant',
    Nullable(
      Type.String({
        pattern: '^(?:[01]\\d|2[0-3]):[0-5]\\d-(?:[01]\\d|2[0-3]):[0-5]\\d$',
        errorMessage: 'must be HH:MM-HH:MM in Dominican time, e.g. 08:00-18:00',
      }),
    ),
    null,
    'Business hours (Dominican time) counted by the emission-silence alert.',
  ),
  define(
    'limits.monthly_ecf_cap',
    'tenant',
    Nullable(Type.Integer({ minimum: 1, maximum: 100_000_000, errorMessage: 'must be a whole number of e-CF from 1 to 100000000, or null' })),
    null,
    "Production e-CF a tenant may issue per Dominican calendar month; at the cap POST /ecf answers 409 Ecf.MonthlyLimitReached until the next month. Set by the operator; null: no cap.",
  ),
  define(
    'reception.require_bearer_auth',
    'tenant',
    Type.Boolean({ errorMessage: 'must be true or false' }),
    false,
    'The B2B receiver routes (/{tenantId}/fe/recepcion and /fe/aprobacioncomercial) require a bearer token from /fe/autenticacion (PUT /api/v1/inbound-ecf-settings).',
  ),
  define(
    'webhooks.development_mode',
    'platform',
    Type.Boolean({ errorMessage: 'must be true or false' }),
    false,
    'Allows plain-HTTP webhook URLs, for trying receivers on a development machine.',
  ),
  define(
    'webhooks.allowed_private_cidrs',
    'platform',
    Type.Array(
      Type.String({ format: 'cidr', errorMessage: 'must be a CIDR such as 192.168.1.0/24 or fd12:3456::/48, or a single address' }),
      { maxItems: 100, errorMessage: 'must be a JSON array of at most 100 CIDRs, e.g. ["192.168.1.0/24"]' },
    ),
    [],
    'Private or reserved networks webhook receivers may be on (e.g. ["192.168.1.0/24"] for receivers on the LAN). The cloud metadata address stays refused whatever is listed.',
  ),
  define(
    'duplicates.mode',
    'tenant',
    Type.Union([Type.Literal('off'), Type.Literal('observar'), Type.Literal('rechazar')], {
      errorMessage: 'must be off, observar or rechazar',
    }),
    'observar',
    'An e-CF matching a recent one (same buyer, total and lines): observar issues it and emits ecf.duplicate_suspected; rechazar refuses it with 409 Ecf.DuplicateSuspected; off does neither.',
  ),
  define(
    'duplicates.window_minutes',
    'tenant',
    Type.Integer({ minimum: 1, maximum: 10080, errorMessage: 'must be a whole number of minutes from 1 to 10080' }),
    10,
    'How far back duplicate detection looks.',
  ),
  define(
    'issuing.wait_for_verdict_seconds',
    'tenant',
    Type.Integer({ minimum: 0, maximum: 30, errorMessage: 'must be a whole number of seconds from 0 to 30' }),
    0,
    "POST /ecf waits up to this long for the authority's verdict before answering; 0 answers at once with status signed.",
  ),
  define(
    'contingency.after_minutes',
    'platform',
    Type.Integer({ minimum: 1, maximum: 1440, errorMessage: 'must be a whole number of minutes from 1 to 1440' }),
    15,
    'Minutes of failing to reach the authority, with no success between, before contingency starts by itself.',
  ),
  define(
    'secrets.store',
    'platform',
    Type.Union([Type.Literal('auto'), Type.Literal('keychain'), Type.Literal('file')], {
      errorMessage: 'must be auto, keychain or file',
    }),
    'auto',
    'Where new secrets rest: the OS keychain, encrypted files beside the database, or auto (the keychain when one answers).',
  ),
  taxauthUrl('taxauth.url.test', 'main', 'test'),
  taxauthUrl('taxauth.url.cert', 'main', 'cert'),
  taxauthUrl('taxauth.url.production', 'main', 'production'),
  taxauthUrl('taxauth.fc_url.test', 'fc', 'test'),
  taxauthUrl('taxauth.fc_url.cert', 'fc', 'cert'),
  taxauthUrl('taxauth.fc_url.production', 'fc', 'production'),
  define(
    'taxauth.concurrency',
    'platform',
    Type.Integer({ minimum: 1, maximum: 256, errorMessage: 'must be a whole number from 1 to 256' }),
    64,
    'Calls to one authority environment (sends, status queries, RFCE, ACECF) in flight at once from one engine process; halved for a while when the authority answers 429 or 503.',
  ),
  define(
    'taxauth.timeout_ms',
    'platform',
    Type.Integer({ minimum: 100, maximum: 600000, errorMessage: 'must be a whole number of milliseconds from 100 to 600000' }),
    15000,
    'How long one call to the tax authority may take (connect, headers and body) before it counts as a timeout.',
  ),
  define(
    'taxauth.status_url',
    'platform',
    authorityUrl,
    null,
    "Base URL of the tax authority's service-status host (status, maintenance windows, environment check); null uses the authority's own, https://statusecf.dgii.gov.do.",
  ),
  define(
    'taxauth.tls_min_version',
    'platform',
    Type.Union([Type.Literal('TLSv1.2'), Type.Literal('TLSv1.3')], { errorMessage: 'must be TLSv1.2 or TLSv1.3' }),
    'TLSv1.2',
    'Lowest TLS version offered to the tax authority.',
  ),
  define(
    'taxauth.tls_ciphers',
    'platform',
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: 2000,
        pattern: '^[A-Za-z0-9_+!:@=.-]+$',
        errorMessage: 'must be an OpenSSL cipher list such as ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES128-GCM-SHA256, or null for Node\'s default',
      }),
    ),
    null,
    "TLS 1.2 cipher suites offered to the tax authority, as an OpenSSL cipher list; null offers Node's default list.",
  ),
  define(
    'retention.delivered_webhooks_days',
    'platform',
    Type.Integer({ minimum: 30, maximum: 3650, errorMessage: 'must be a whole number of days from 30 to 3650 (the contract keeps the delivery log 30 days)' }),
    30,
    'Days a delivered webhook delivery stays in the delivery log after its last attempt; then the store-clean job removes it.',
  ),
  define(
    'retention.dead_webhooks_days',
    'platform',
    Type.Integer({ minimum: 30, maximum: 3650, errorMessage: 'must be a whole number of days from 30 to 3650 (the contract keeps the delivery log 30 days)' }),
    90,
    'Days a dead webhook delivery stays (and can be retried) after its last attempt; then the store-clean job removes it. Pending deliveries are never removed.',
  ),
  define(
    'retention.events_days',
    'platform',
    Type.Integer({ minimum: 1, maximum: 3650, errorMessage: 'must be a whole number of days from 1 to 3650' }),
    30,
    'Days an event stays after it was emitted; then the store-clean job removes it once no webhook delivery names it. Events that remember a fact told once (expiry notices, alerts, monthly limits) are kept.',
  ),
  define(
    'exports.keep_days',
    'platform',
    Type.Integer({ minimum: 1, maximum: 3650, errorMessage: 'must be a whole number of days from 1 to 3650' }),
    30,
    'Days a period export asked for over the API (POST /api/v1/exports) is kept in the data dir after it finished; then the store-clean job removes its ZIP and its row.',
  ),
  define(
    'metrics.exposure',
    'platform',
    Type.Union([Type.Literal('off'), Type.Literal('loopback'), Type.Literal('public')], {
      errorMessage: 'must be off, loopback or public',
    }),
    'loopback',
    'Who may read GET /metrics (Prometheus): off answers 404 to everyone; loopback answers only callers on this machine; public answers anyone who reaches the port.',
  ),
  define(
    'console.exposure',
    'platform',
    Type.Union([Type.Literal('off'), Type.Literal('loopback'), Type.Literal('public')], {
      errorMessage: 'must be off, loopback or public',
    }),
    'loopback',
    'Who may open the web console (/console): off answers 404 to everyone; loopback answers only browsers on this machine; public answers anyone who reaches the port (each still signs in with an API key).',
  ),
] as const;

export type SettingKey = (typeof SETTINGS)[number]['key'];

/** The value of a setting, as its schema says: readers never choose the type. */
export type SettingValue<K extends SettingKey> = Static<Extract<(typeof SETTINGS)[number], { key: K }>['schema']>;

/** The keys whose value is a `T` (e.g. the settings that hold a number of days). */
export type SettingKeyOf<T> = { [K in SettingKey]: [SettingValue<K>] extends [T] ? K : never }[SettingKey];

/** The effective values of several settings, each typed by its key. */
export type SettingValues<K extends SettingKey> = { [P in K]: SettingValue<P> };

export const settingDefinition = (key: string): SettingDefinition | undefined =>
  SETTINGS.find((s) => s.key === key);
