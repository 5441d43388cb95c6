import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { parseCidr, parseIp, wrapIp as wrap, type Cidr, type IpAddress } from '../net/addresses.js';

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

export function inCidr(ip: IpAddress, cidr: Cidr): boolean {
  return ip.ip.kind() === cidr.ip.kind() && ip.ip.match(cidr.ip, cidr.prefix);
}

/**
 * A block of our own, written here: parsed by ipaddr.js alone, since Node's
 * isIP compiles its IPv6 pattern on first use (tens of ms), which every
 * start of `ecf` would pay for at import time.
 */
const literal = (text: string): Cidr => {
  const [ip, prefix] = ipaddr.parseCIDR(text);
  return { ...wrap(ip), prefix, text };
};
const own = (cidr: string, what: string) => ({ cidr: literal(cidr), what });

/** Cloud metadata services: refused whatever the operator allows (no registry lists them). */
export const METADATA_RANGES = [own('169.254.169.254/32', 'the cloud metadata address'), own('fd00:ec2::254/128', 'the cloud metadata address (IPv6)')];

/**
 * The words a refusal uses for each of ipaddr.js's special ranges (its
 * SpecialRanges tables, which follow the IANA special-purpose registries).
 * Where one range name covers blocks with different purposes, the block's
 * own words come first.
 */
const RANGE_WORDS: Record<string, string> = {
  unspecified: 'unspecified ("this network")',
  broadcast: 'reserved (broadcast)',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'shared address space (CGNAT)',
  private: 'private',
  reserved: 'reserved',
  as112: 'AS112 anycast DNS',
  amt: 'AMT relay anycast',
  uniqueLocal: 'unique-local',
  ipv4Mapped: 'IPv4-mapped IPv6',
  deprecatedSiteLocal: 'site-local (deprecated)',
  discard: 'discard-only',
  rfc6145: 'IPv4-translated IPv6 (SIIT)',
  rfc6052: 'NAT64 (embeds an IPv4 address)',
  '6to4': '6to4 (embeds an IPv4 address)',
  teredo: 'Teredo, in the IETF protocol assignments (embeds an IPv4 address)',
  benchmarking: 'benchmarking',
  as112v6: 'AS112 anycast DNS',
  deprecatedOrchid: 'ORCHID (deprecated)',
  orchid2: 'ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'drone remote ID tags',
  segmentRouting: 'segment routing (SRv6)',
};
const BLOCK_WORDS: Record<string, string> = {
  '192.0.0.0/24': 'IETF protocol assignments',
  '192.0.2.0/24': 'documentation (TEST-NET-1)',
  '192.88.99.0/24': '6to4 relay anycast',
  '198.18.0.0/15': 'benchmarking',
  '198.51.100.0/24': 'documentation (TEST-NET-2)',
  '203.0.113.0/24': 'documentation (TEST-NET-3)',
  '240.0.0.0/4': 'reserved (future use)',
  '64:ff9b:1::/48': 'local NAT64 (embeds an IPv4 address)',
  '2001::/23': 'IETF protocol assignments',
  '2001:db8::/32': 'documentation',
  '3fff::/20': 'documentation',
};

/** IPv4-compatible addresses (::a.b.c.d, deprecated by RFC 4291) are not in the library's tables. */
const V4_COMPATIBLE = own('::/96', 'IPv4-compatible IPv6 (deprecated)');
const GLOBAL_UNICAST_V6 = literal('2000::/3');

type Subnet = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** The special range an address is in, as ipaddr.js names it, with the block (CIDR) that matched. */
function specialRange(ip: IpAddress): { cidr: string; what: string } | null {
  const name = ip.ip.range();
  if (name === 'unicast') return null;
  const table = (ip.ip as unknown as { SpecialRanges: Record<string, Subnet | Subnet[]> }).SpecialRanges[name];
  const blocks: Subnet[] = table === undefined ? [] : Array.isArray(table[0]) ? (table as Subnet[]) : [table as Subnet];
  const block = blocks.find(([net, bits]) => ip.ip.match(net as never, bits));
  const cidr = block ? `${block[0].toString()}/${block[1]}` : name;
  return { cidr, what: BLOCK_WORDS[cidr] ?? RANGE_WORDS[name] ?? name };
}

/** The IPv4 addresses an IPv6 address carries: mapped, compatible, SIIT, NAT64 (last 4 bytes), 6to4 (bytes 2–5), Teredo (server, and client inverted). */
function embeddedV4(ip: IpAddress): IpAddress[] {
  if (ip.family !== 6) return [];
  const v4 = (bytes: ArrayLike<number>) => wrap(new ipaddr.IPv4(Array.from(bytes)));
  const b = ip.bytes;
  switch ((ip.ip as ipaddr.IPv6).range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
    case 'rfc6052':
      return [v4(b.slice(12, 16))];
    case '6to4':
      return [v4(b.slice(2, 6))];
    case 'teredo':
      return [v4(b.slice(4, 8)), v4(b.slice(12, 16).map((x) => x ^ 0xff))];
    default:
      return inCidr(ip, V4_COMPATIBLE.cidr) ? [v4(b.slice(12, 16))] : [];
  }
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
  // e.g. ::ffff:a9fe:a9fe, which is 169.254.169.254 inside IPv6
  const metadata = METADATA_RANGES.find((r) => inCidr(ip, r.cidr) || inner.some((v4) => inCidr(v4, r.cidr)));
  if (metadata) return { allowed: false, reason: `${metadata.what} (always refused)` };
  const special = specialRange(ip) ?? (inCidr(ip, V4_COMPATIBLE.cidr) ? { cidr: V4_COMPATIBLE.cidr.text, what: V4_COMPATIBLE.what } : null);
  const outsideGlobal = !special && ip.family === 6 && !inCidr(ip, GLOBAL_UNICAST_V6);
  if (!special && !outsideGlobal) return { allowed: true };
  const permit = allowed.find((c) => inCidr(ip, c));
  if (permit) return { allowed: true, via: permit.text };
  const reason = special ? `in ${special.cidr} (${special.what})` : `outside ${GLOBAL_UNICAST_V6.text} (reserved, not global unicast)`;
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
