import ipaddr from 'ipaddr.js';

/**
 * The caller is on this machine: 127.0.0.0/8, ::1, or an IPv4-mapped 127.x.
 * What a `loopback` exposure setting (metrics, the console) lets in.
 */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  try {
    return ipaddr.process(address).range() === 'loopback';
  } catch {
    return false;
  }
}
