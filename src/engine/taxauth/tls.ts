import { connect, type ConnectionOptions } from 'node:tls';
import { isIP } from 'node:net';

/**
 * TLS towards the authority's hosts, from two platform settings:
 * `taxauth.tls_min_version` (TLSv1.2 or TLSv1.3) and `taxauth.tls_ciphers`
 * (an OpenSSL cipher list for TLS 1.2, or null for Node's default list).
 * The authority changed its TLS requirements before and clients broke
 * (NOTES §3.1), so both can be changed without a new release.
 */
export interface TaxauthTls {
  readonly minVersion: 'TLSv1.2' | 'TLSv1.3';
  readonly ciphers: string | null;
}

export const DEFAULT_TLS: TaxauthTls = { minVersion: 'TLSv1.2', ciphers: null };

/** The settings' values as TaxauthTls; anything unreadable falls back to the default. */
export function tlsFromSettings(minVersion: unknown, ciphers: unknown): TaxauthTls {
  return {
    minVersion: minVersion === 'TLSv1.3' ? 'TLSv1.3' : 'TLSv1.2',
    ciphers: typeof ciphers === 'string' && ciphers.trim() !== '' ? ciphers.trim() : null,
  };
}

/** The options for node:tls (and undici's connector). */
export function tlsConnectOptions(tls: TaxauthTls): { minVersion: 'TLSv1.2' | 'TLSv1.3'; ciphers?: string } {
  return { minVersion: tls.minVersion, ...(tls.ciphers !== null && { ciphers: tls.ciphers }) };
}

/** What one TLS handshake with a host negotiated, or why it failed. */
export interface TlsProbe {
  /** The URL's origin, e.g. https://ecf.dgii.gov.do */
  readonly origin: string;
  readonly ok: boolean;
  /** e.g. TLSv1.3; null without TLS or on failure. */
  readonly protocol: string | null;
  /** OpenSSL name, e.g. ECDHE-RSA-AES128-GCM-SHA256. */
  readonly cipher: string | null;
  /** IANA name, e.g. TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256. */
  readonly standardCipher: string | null;
  /** Why it failed, naming the setting to look at; or why nothing was checked (plain http). */
  readonly detail: string | null;
}

export interface ProbeOptions {
  readonly timeoutMs: number;
  /** Trusted CA certificates in place of the system's (tests); NODE_EXTRA_CA_CERTS works as usual otherwise. */
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
}

/**
 * One TLS handshake with the URL's host using the same options as the
 * client's Agent, then closed. undici keeps its sockets to itself; a
 * handshake of our own with the same options negotiates what the Agent
 * would (the same OpenSSL, the same offer), and does not disturb its pool.
 */
export function probeTls(url: string, tls: TaxauthTls, options: ProbeOptions): Promise<TlsProbe> {
  const u = new URL(url);
  const origin = u.origin;
  const none = { protocol: null, cipher: null, standardCipher: null };
  if (u.protocol === 'http:') return Promise.resolve({ origin, ok: true, ...none, detail: 'plain HTTP: no TLS to negotiate' });
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = u.port ? Number(u.port) : 443;
  return new Promise((resolve) => {
    let settled = false;
    const done = (probe: TlsProbe) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.destroy();
      resolve(probe);
    };
    const fail = (err: unknown) => done({ origin, ok: false, ...none, detail: explainConnectFailure(err, host, port) ?? explainTlsFailure(err, tls) });
    const timer = setTimeout(() => done({ origin, ok: false, ...none, detail: `no TLS handshake within ${options.timeoutMs} ms` }), options.timeoutMs);
    let socket: ReturnType<typeof connect> | undefined;
    try {
      const connectOptions: ConnectionOptions = {
        host,
        port,
        ...(isIP(host) === 0 && { servername: host }),
        ...tlsConnectOptions(tls),
        ...(options.ca !== undefined && { ca: options.ca as ConnectionOptions['ca'] }),
      };
      socket = connect(connectOptions, () => {
        const cipher = socket!.getCipher();
        done({ origin, ok: true, protocol: socket!.getProtocol() ?? null, cipher: cipher?.name ?? null, standardCipher: cipher?.standardName ?? null, detail: null });
      });
      socket.once('error', fail);
    } catch (err) {
      // An unknown cipher list throws at once ("No cipher match").
      fail(err);
    }
  });
}

/**
 * A failure before any TLS was spoken (the name did not resolve, nothing
 * listens, no route), in words that say so: the TLS settings played no part
 * and changing them would not help. Null for anything else.
 */
export function explainConnectFailure(err: unknown, host: string, port: number): string | null {
  const code = String((err as { code?: unknown })?.code ?? '');
  const said = `(${code}: ${err instanceof Error ? err.message : String(err)})`;
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NONAME':
      return `${host} does not resolve: check the host name in the taxauth.url settings and this machine's DNS (the TLS settings played no part) ${said}`;
    case 'ECONNREFUSED':
      return `nothing accepts connections at ${host}:${port}: check the taxauth.url settings, a firewall or a proxy (no TLS was spoken) ${said}`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return `${host}:${port} cannot be reached from this machine: check its network, firewall or proxy (no TLS was spoken) ${said}`;
    default:
      return null;
  }
}

/**
 * A failed handshake in words that name the setting to look at. OpenSSL's
 * own words come last, in parentheses, for whoever reads further.
 */
export function explainTlsFailure(err: unknown, tls: TaxauthTls): string {
  const message = err instanceof Error ? err.message : String(err);
  const code = String((err as { code?: unknown })?.code ?? '');
  const said = `(${code ? `${code}: ` : ''}${message})`;
  if (/no cipher match/i.test(message)) {
    return `taxauth.tls_ciphers (${tls.ciphers}) names no cipher this machine's OpenSSL knows ${said}`;
  }
  if (/protocol version|unsupported protocol|wrong version number|no protocols available|VERSION_TOO_LOW|UNSUPPORTED_PROTOCOL/i.test(`${code} ${message}`)) {
    return `the host does not speak ${tls.minVersion} or later, the lowest version taxauth.tls_min_version allows ${said}`;
  }
  if (/handshake failure|no shared cipher|NO_SHARED_CIPHER|insufficient security/i.test(`${code} ${message}`)) {
    return tls.ciphers !== null
      ? `the host accepts none of the ciphers in taxauth.tls_ciphers (${tls.ciphers}); unset it for Node's default list or add one the host accepts ${said}`
      : `the host accepts none of Node's default ciphers at ${tls.minVersion} or later; check taxauth.tls_ciphers and taxauth.tls_min_version ${said}`;
  }
  if (/certificate|self.signed|unable to verify|altnames|CERT_/i.test(`${code} ${message}`)) {
    return `the host's certificate is not trusted here ${said}`;
  }
  return `TLS handshake failed with taxauth.tls_min_version ${tls.minVersion} and taxauth.tls_ciphers ${tls.ciphers ?? "null (Node's default)"} ${said}`;
}

/** The error itself or its cause, whichever OpenSSL raised. */
export function tlsCause(err: unknown): unknown {
  const cause = (err as { cause?: unknown })?.cause;
  return looksTls(err) || !cause ? err : cause;
}

/** A connection failure that happened in the TLS handshake (not DNS, not a refusal). */
export function isTlsFailure(err: unknown): boolean {
  return looksTls(err) || looksTls((err as { cause?: unknown })?.cause);
}

function looksTls(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = String((err as { code?: unknown }).code ?? '');
  return /^ERR_SSL|^ERR_TLS|^EPROTO$/.test(code) || /ssl|tls|handshake|cipher/i.test(err.message);
}
