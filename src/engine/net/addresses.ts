import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * Addresses and CIDR blocks as the appliance reads them: the webhook SSRF
 * guard (webhooks/address-guard.ts) matches against them, and the settings
 * catalogue validates the operator's allowed blocks with isCidr, so they sit
 * down here where settings can import them.
 */

export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  /** The library's parsed form, for matching and its range table. */
  readonly ip: ipaddr.IPv4 | ipaddr.IPv6;
}

export interface Cidr extends IpAddress {
  readonly prefix: number;
  /** As written, e.g. `192.168.1.0/24`. */
  readonly text: string;
}

export const wrapIp = (ip: ipaddr.IPv4 | ipaddr.IPv6): IpAddress => ({
  family: ip.kind() === 'ipv4' ? 4 : 6,
  bytes: Uint8Array.from(ip.toByteArray()),
  ip,
});

/**
 * Parses a dotted-decimal IPv4 or an IPv6 address (no brackets); null if it
 * is neither. Node's isIP decides what counts as an address, because
 * ipaddr.js would also take the legacy IPv4 notations (0x7f.1, 127.1) that
 * only the URL parser may turn into dotted decimal.
 */
export function parseIp(text: string): IpAddress | null {
  const family = isIP(text);
  if (family === 0) return null;
  try {
    return wrapIp(ipaddr.parse(family === 6 ? hexTail(text) : text));
  } catch {
    return null;
  }
}

/**
 * An IPv6 address's dotted IPv4 tail as two hex groups: ipaddr.js reads
 * `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`, which is another address.
 */
const hexTail = (text: string): string =>
  text.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a: string, b: string, c: string, d: string) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );

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
