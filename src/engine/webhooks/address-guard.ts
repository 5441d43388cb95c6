import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * The SSRF guard of webhook deliveries. A receiver's host is resolved once,
 * every address it resolves to is checked against the ranges below, and the
 * connection goes to the checked address only (see send.ts): the HTTP client
 * never resolves the name again, so a DNS answer that changes between the
 * check and the connection (rebinding) cannot steer it elsewhere.
 *
 * IP literals are checked in the form the WHATWG URL parser gives them, which
 * already turns every IPv4 notation (0x7f.1, 2130706433, 017700000001, 127.1)
 * into dotted decimal and IPv6 into its compressed form.
 */

export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
}

export interface Cidr extends IpAddress {
  readonly prefix: number;
  /** As written, e.g. `192.168.1.0/24`. */
  readonly text: string;
}

/** Parses a dotted-decimal IPv4 or an IPv6 address (no brackets, no zone); null if it is neither. */
export function parseIp(text: string): IpAddress | null {
  const family = isIP(text);
  if (family === 4) return { family: 4, bytes: Uint8Array.from(text.split('.').map(Number)) };
  if (family !== 6) return null;
  let head = text;
  let tail4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    tail4 = text.slice(lastColon + 1).split('.').map(Number);
    head = text.slice(0, lastColon + 1) + '0:0';
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined];
  const groups = (s: string | undefined) => (s ? s.split(':').filter((g) => g !== '').map((g) => parseInt(g, 16)) : []);
  const l = groups(left);
  const r = groups(right);
  const words = right === undefined ? l : [...l, ...new Array<number>(8 - l.length - r.length).fill(0), ...r];
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[i * 2] = w >> 8;
    bytes[i * 2 + 1] = w & 0xff;
  });
  if (tail4.length === 4) bytes.set(tail4, 12);
  return { family: 6, bytes };
}

/** `10.0.0.0/8`, `fd12:3456::/48`, or a single address (a /32 or /128); null when it is none of those. */
export function parseCidr(text: string): Cidr | null {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const ip = parseIp(slash < 0 ? trimmed : trimmed.slice(0, slash));
  if (!ip) return null;
  const max = ip.family === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(max) : trimmed.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > max) return null;
  return { ...ip, prefix, text: trimmed };
}

export const isCidr = (text: string): boolean => parseCidr(text) !== null;

export function inCidr(ip: IpAddress, cidr: Cidr): boolean {
  if (ip.family !== cidr.family) return false;
  let bits = cidr.prefix;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((ip.bytes[i]! & mask) !== (cidr.bytes[i]! & mask)) return false;
  }
  return true;
}

const range = (cidr: string, what: string) => ({ cidr: parseCidr(cidr)!, what });

/** Cloud metadata services: refused whatever the operator allows. */
export const METADATA_RANGES = [
  range('169.254.169.254/32', 'the cloud metadata address'),
  range('fd00:ec2::254/128', 'the cloud metadata address (IPv6)'),
];

/**
 * Addresses a webhook may not reach unless the operator allows them with
 * `webhooks.allowed_private_cidrs` (IANA special-purpose registries).
 */
export const BLOCKED_RANGES = [
  range('0.0.0.0/8', 'unspecified ("this network")'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'shared address space (CGNAT)'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'IETF protocol assignments'),
  range('192.0.2.0/24', 'documentation (TEST-NET-1)'),
  range('192.88.99.0/24', '6to4 relay anycast'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'benchmarking'),
  range('198.51.100.0/24', 'documentation (TEST-NET-2)'),
  range('203.0.113.0/24', 'documentation (TEST-NET-3)'),
  range('224.0.0.0/4', 'multicast'),
  range('240.0.0.0/4', 'reserved (including broadcast)'),
  range('::/128', 'unspecified'),
  range('::1/128', 'loopback'),
  range('::ffff:0:0/96', 'IPv4-mapped IPv6'),
  range('::/96', 'IPv4-compatible IPv6'),
  range('64:ff9b::/96', 'NAT64 (embeds an IPv4 address)'),
  range('64:ff9b:1::/48', 'local NAT64'),
  range('100::/64', 'discard-only'),
  range('2001::/23', 'IETF protocol assignments (Teredo, benchmarking, ORCHID)'),
  range('2001:db8::/32', 'documentation'),
  range('2002::/16', '6to4 (embeds an IPv4 address)'),
  range('3fff::/20', 'documentation'),
  range('5f00::/16', 'segment routing (SRv6)'),
  range('fc00::/7', 'unique-local'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'site-local (deprecated)'),
  range('ff00::/8', 'multicast'),
];

const GLOBAL_UNICAST_V6 = parseCidr('2000::/3')!;

/** IPv6 forms that carry an IPv4 address inside: mapped, compatible, NAT64 (last 4 bytes) and 6to4 (bytes 2–5). */
const EMBEDDING_V4 = [
  { cidr: parseCidr('::ffff:0:0/96')!, at: 12 },
  { cidr: parseCidr('::/96')!, at: 12 },
  { cidr: parseCidr('64:ff9b::/96')!, at: 12 },
  { cidr: parseCidr('2002::/16')!, at: 2 },
];

function embeddedV4(ip: IpAddress): IpAddress | null {
  if (ip.family !== 6) return null;
  const form = EMBEDDING_V4.find((f) => inCidr(ip, f.cidr));
  return form ? { family: 4, bytes: ip.bytes.slice(form.at, form.at + 4) } : null;
}

export type AddressVerdict =
  | { readonly allowed: true; readonly via?: string }
  /** `reason` completes "<address> is …", e.g. `in 10.0.0.0/8 (private)`. */
  | { readonly allowed: false; readonly reason: string };

/**
 * Whether a webhook may connect to `address`: public addresses may; blocked
 * ones only inside an operator-allowed CIDR; the metadata address never.
 */
export function checkAddress(address: string, allowed: readonly Cidr[] = []): AddressVerdict {
  const ip = parseIp(address);
  if (!ip) return { allowed: false, reason: 'not an IP address' };
  const inner = embeddedV4(ip);
  const metadata = METADATA_RANGES.find((r) => inCidr(ip, r.cidr) || (inner !== null && inCidr(inner, r.cidr)));
  // e.g. ::ffff:a9fe:a9fe, which is 169.254.169.254 inside IPv6
  if (metadata) return { allowed: false, reason: `${metadata.what} (always refused)` };
  const blocked = BLOCKED_RANGES.find((r) => inCidr(ip, r.cidr));
  const outsideGlobal = !blocked && ip.family === 6 && !inCidr(ip, GLOBAL_UNICAST_V6);
  if (!blocked && !outsideGlobal) return { allowed: true };
  const permit = allowed.find((c) => inCidr(ip, c));
  if (permit) return { allowed: true, via: permit.text };
  const reason = blocked
    ? `in ${blocked.cidr.text} (${blocked.what})`
    : `outside ${GLOBAL_UNICAST_V6.text} (reserved, not global unicast)`;
  return { allowed: false, reason };
}

/** Turns a name into addresses; the default asks the system resolver. Tests inject their own. */
export type Resolver = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** Why a URL's host may not be reached, in words fit for a field error or a delivery log. */
export class AddressRefused extends Error {
  readonly code: 'Webhook.AddressNotAllowed' | 'Webhook.HostNotResolved';
  constructor(code: AddressRefused['code'], message: string) {
    super(message);
    this.name = 'AddressRefused';
    this.code = code;
  }
}

/** The one address a delivery connects to, checked. */
export interface CheckedTarget {
  readonly url: URL;
  readonly address: string;
  readonly family: 4 | 6;
}

/** The URL's host as the parser normalised it: an IP literal (brackets removed) or a name. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Resolves the URL's host once and checks every address it resolves to (one
 * refused address refuses the host, so a mixed answer cannot slip through).
 * Returns the first address, which is the only one the delivery may use.
 */
export async function checkTarget(url: URL, allowed: readonly Cidr[], resolve: Resolver = systemResolver): Promise<CheckedTarget> {
  const host = hostOf(url);
  let answers: readonly { address: string; family: number }[];
  if (isIP(host)) {
    answers = [{ address: host, family: isIP(host) }];
  } else {
    try {
      answers = await resolve(host);
    } catch (e) {
      const code = (e as { code?: string }).code;
      throw new AddressRefused('Webhook.HostNotResolved', `the host ${host} does not resolve${code ? ` (${code})` : ''}`);
    }
    if (answers.length === 0) throw new AddressRefused('Webhook.HostNotResolved', `the host ${host} does not resolve`);
  }
  for (const a of answers) {
    const verdict = checkAddress(a.address, allowed);
    if (!verdict.allowed) {
      const subject = isIP(host) ? `${a.address} is` : `${host} resolves to ${a.address}, which is`;
      throw new AddressRefused('Webhook.AddressNotAllowed', `${subject} ${verdict.reason}; webhooks may not reach private or reserved addresses`);
    }
  }
  const first = answers[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** The operator's allowed CIDRs as stored in the setting (invalid entries never get there). */
export const parseAllowed = (texts: readonly string[]): Cidr[] => texts.map(parseCidr).filter((c): c is Cidr => c !== null);
