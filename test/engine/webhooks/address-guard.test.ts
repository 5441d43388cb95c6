import { describe, expect, it } from 'vitest';
import {
  AddressRefused,
  checkAddress,
  checkTarget,
  inCidr,
  type Resolver,
} from '../../../src/engine/webhooks/address-guard.js';
import { parseCidr, parseIp } from '../../../src/engine/net/addresses.js';

const allow = (...cidrs: string[]) => cidrs.map((c) => parseCidr(c)!);

describe('the SSRF guard: addresses', () => {
  // One address inside every refused range, with the words its refusal uses.
  const REFUSED: [string, string][] = [
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.254', 'CGNAT'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.1.1', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['192.0.2.10', 'documentation'],
    ['192.88.99.1', '6to4 relay'],
    ['192.168.1.20', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.1', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:8.8.8.8', 'IPv4-mapped'],
    ['::ffff:127.0.0.1', 'IPv4-mapped'],
    ['::ffff:7f00:1', 'IPv4-mapped'],
    ['::127.0.0.1', 'IPv4-compatible'],
    ['64:ff9b::a00:1', 'NAT64'],
    ['64:ff9b:1::1', 'NAT64'],
    ['100::1', 'discard-only'],
    ['2001::1', 'IETF protocol assignments'],
    ['2001:db8::1', 'documentation'],
    ['2002:7f00:1::1', '6to4'],
    ['3fff::1', 'documentation'],
    ['5f00::1', 'segment routing'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['4000::1', 'not global unicast'],
  ];

  it.each(REFUSED)('refuses %s (%s)', (address, what) => {
    const verdict = checkAddress(address);
    expect(verdict.allowed).toBe(false);
    expect(verdict.allowed === false && verdict.reason).toContain(what);
  });

  it('lets public addresses through', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '100.63.255.255', '100.128.0.1', '172.15.255.255', '172.32.0.1', '192.167.255.255', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) {
      expect(checkAddress(a), a).toEqual({ allowed: true });
    }
  });

  it('lets the operator allow specific private ranges, and nothing else', () => {
    const allowed = allow('192.168.1.0/24', '10.20.0.0/16', 'fd00:1234::/32', '127.0.0.1');
    expect(checkAddress('192.168.1.77', allowed)).toEqual({ allowed: true, via: '192.168.1.0/24' });
    expect(checkAddress('10.20.3.4', allowed)).toEqual({ allowed: true, via: '10.20.0.0/16' });
    expect(checkAddress('fd00:1234:5::9', allowed)).toEqual({ allowed: true, via: 'fd00:1234::/32' });
    expect(checkAddress('127.0.0.1', allowed)).toEqual({ allowed: true, via: '127.0.0.1' });
    expect(checkAddress('127.0.0.2', allowed).allowed).toBe(false);
    expect(checkAddress('192.168.2.1', allowed).allowed).toBe(false);
    expect(checkAddress('10.21.0.1', allowed).allowed).toBe(false);
    expect(checkAddress('fd00:1235::1', allowed).allowed).toBe(false);
  });

  it('refuses the cloud metadata address whatever the operator allows', () => {
    const everything = allow('0.0.0.0/0', '::/0', '169.254.0.0/16', '169.254.169.254/32', 'fd00::/8');
    for (const a of ['169.254.169.254', 'fd00:ec2::254']) {
      const verdict = checkAddress(a, everything);
      expect(verdict.allowed, a).toBe(false);
      expect(verdict.allowed === false && verdict.reason).toContain('metadata');
    }
    // The rest of link-local follows the operator's list.
    expect(checkAddress('169.254.1.1', everything).allowed).toBe(true);
  });

  it('parses CIDRs and addresses strictly', () => {
    expect(parseCidr('192.168.1.0/24')).toMatchObject({ family: 4, prefix: 24 });
    expect(parseCidr('fd12:3456::/48')).toMatchObject({ family: 6, prefix: 48 });
    expect(parseCidr('10.0.0.5')).toMatchObject({ family: 4, prefix: 32 });
    for (const bad of ['192.168.1.0/33', '::/129', '192.168.1/24', 'lan', '10.0.0.0/x', '10.0.0.0/', '', '0x7f.0.0.1/8']) {
      expect(parseCidr(bad), bad).toBeNull();
    }
    expect([...parseIp('::ffff:1.2.3.4')!.bytes]).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
    expect([...parseIp('2001:db8::8:800:200c:417a')!.bytes].slice(8)).toEqual([0, 0, 0, 8, 8, 0, 32, 12, 65, 122].slice(2));
  });
});

describe('the SSRF guard: URLs', () => {
  const refuses = async (url: string, allowed = allow(), resolve?: Resolver) => {
    const error = await checkTarget(new URL(url), allowed, resolve).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, url).toBeInstanceOf(AddressRefused);
    return error as AddressRefused;
  };

  it('checks IP literals in every notation the URL parser accepts', async () => {
    const loopback = [
      'http://127.0.0.1/',
      'http://0x7f.1/',
      'http://0x7f000001/',
      'http://2130706433/',
      'http://017700000001/',
      'http://0177.0.0.01/',
      'http://127.1/',
      'http://127.0.1/',
      'http://[::1]/',
      'http://[0:0:0:0:0:0:0:1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[0:0:0:0:0:ffff:7f00:1]/',
      'https://0x7F.0x0.0x0.0x1:8443/hook',
    ];
    for (const url of loopback) expect((await refuses(url)).code).toBe('Webhook.AddressNotAllowed');
    // The metadata address in any notation, also inside IPv6 forms that embed an IPv4 address, even when allowed.
    const metadata = ['http://0xa9fea9fe/', 'http://2852039166/', 'http://169.254.43518/', 'http://[::ffff:a9fe:a9fe]/', 'http://[::169.254.169.254]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[2002:a9fe:a9fe::1]/'];
    for (const url of metadata) {
      expect((await refuses(url, allow('169.254.0.0/16', '::/0'))).message, url).toContain('metadata');
    }
    expect((await refuses('http://0xa000001/')).message).toContain('10.0.0.1');
  });

  it('checks every address a name resolves to, and refuses names that do not resolve', async () => {
    const answers: Record<string, string[]> = {
      'public.test': ['93.184.216.34'],
      'mixed.test': ['93.184.216.34', '10.1.2.3'],
      'metadata.test': ['169.254.169.254'],
      'lan.test': ['192.168.1.50'],
    };
    const resolve: Resolver = async (host) => {
      const a = answers[host];
      if (!a) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return a.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    };
    expect(await checkTarget(new URL('https://public.test/x'), [], resolve)).toMatchObject({ address: '93.184.216.34', family: 4 });
    expect((await refuses('https://mixed.test/', allow(), resolve)).message).toBe(
      'mixed.test resolves to 10.1.2.3, which is in 10.0.0.0/8 (private); webhooks may not reach private or reserved addresses',
    );
    expect((await refuses('https://metadata.test/', allow('169.254.0.0/16'), resolve)).message).toContain('metadata');
    expect((await refuses('https://lan.test/', allow(), resolve)).code).toBe('Webhook.AddressNotAllowed');
    expect(await checkTarget(new URL('https://lan.test/'), allow('192.168.1.0/24'), resolve)).toMatchObject({ address: '192.168.1.50' });
    const missing = await refuses('https://nowhere.test/', allow(), resolve);
    expect(missing.code).toBe('Webhook.HostNotResolved');
    expect(missing.message).toContain('ENOTFOUND');
  });

  it('resolves localhost with the system resolver and refuses it', async () => {
    expect((await refuses('http://localhost:8080/')).code).toBe('Webhook.AddressNotAllowed');
  });
});

describe('the SSRF guard: IPv6 forms that carry an IPv4 address', () => {
  // The metadata address 169.254.169.254 is a9fe:a9fe in hex; Teredo stores its client inverted (5601:5601).
  const CARRIERS: [string, string, string][] = [
    ['IPv4-mapped', '::ffff:a9fe:a9fe', '::ffff:808:808'],
    ['IPv4-compatible', '::a9fe:a9fe', '::808:808'],
    ['SIIT (IPv4-translated)', '::ffff:0:a9fe:a9fe', '::ffff:0:808:808'],
    ['NAT64', '64:ff9b::a9fe:a9fe', '64:ff9b::808:808'],
    ['6to4', '2002:a9fe:a9fe::1', '2002:808:808::1'],
    ['Teredo (server)', '2001:0:a9fe:a9fe::1', '2001:0:808:808::1'],
    ['Teredo (client)', '2001:0:4136:e378:8000:63bf:5601:5601', '2001:0:4136:e378:8000:63bf:f7f7:f7f7'],
  ];
  const everything = allow('0.0.0.0/0', '::/0');

  it.each(CARRIERS)('%s: the metadata address inside is refused even when everything is allowed', (_form, withMetadata) => {
    const verdict = checkAddress(withMetadata, everything);
    expect(verdict.allowed).toBe(false);
    expect(verdict.allowed === false && verdict.reason).toContain('metadata');
  });

  it.each(CARRIERS)('%s: refused as a special range by default, and allowed only by an operator CIDR', (_form, _metadata, withPublic) => {
    const verdict = checkAddress(withPublic);
    expect(verdict.allowed, withPublic).toBe(false);
    expect(checkAddress(withPublic, everything)).toEqual({ allowed: true, via: '::/0' });
    // An IPv4 CIDR never admits the IPv6 form of its addresses.
    expect(checkAddress(withPublic, allow('8.8.8.0/24')).allowed).toBe(false);
  });

  it('reads a dotted IPv4 tail as the address written, not as its mapped form', () => {
    expect(checkAddress('::8.8.8.8').allowed === false && (checkAddress('::8.8.8.8') as { reason: string }).reason).toContain('IPv4-compatible');
    expect(checkAddress('::ffff:8.8.8.8').allowed === false && (checkAddress('::ffff:8.8.8.8') as { reason: string }).reason).toContain('IPv4-mapped');
    expect(checkAddress('64:ff9b::8.8.8.8').allowed === false && (checkAddress('64:ff9b::8.8.8.8') as { reason: string }).reason).toContain('NAT64');
  });

  it("matches CIDRs as Node's own BlockList does (fast-check, seed 2501, 400 cases)", async () => {
    const { BlockList } = await import('node:net');
    const fc = await import('fast-check');
    const v6 = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }).map((w) => w.map((x) => x.toString(16)).join(':'));
    const v4 = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }).map((b) => b.join('.'));
    const pair = fc.oneof(
      fc.record({ family: fc.constant('ipv4' as const), address: v4, net: v4, prefix: fc.integer({ min: 0, max: 32 }) }),
      fc.record({ family: fc.constant('ipv6' as const), address: v6, net: v6, prefix: fc.integer({ min: 0, max: 128 }) }),
    );
    fc.assert(
      fc.property(pair, ({ family, address, net, prefix }) => {
        // Sharing a random prefix makes matches common, not a 2^-prefix accident.
        const list = new BlockList();
        list.addSubnet(net, prefix, family);
        const ours = parseCidr(`${net}/${prefix}`)!;
        expect(inCidr(parseIp(address)!, ours)).toBe(list.check(address, family));
        expect(inCidr(parseIp(net)!, ours)).toBe(true);
      }),
      { seed: 2501, numRuns: 400 },
    );
  });
});
