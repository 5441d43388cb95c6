import { randomBytes, randomFillSync } from 'node:crypto';

const pool = Buffer.alloc(16 * 256);
let poolAt = pool.length;
const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/**
 * UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then random bits.
 * Ids that grow with time land next to each other in every index keyed by
 * id, so a new row dirties one page per index instead of a random one (a
 * random UUID cost a page write per id index on every commit). The time is
 * the machine's, not the engine's clock: it orders ids, it records nothing.
 */
export function newId(): string {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const b = pool.subarray(poolAt, poolAt + 16);
  poolAt += 16;
  const ms = Date.now();
  b[0] = Math.floor(ms / 2 ** 40) & 0xff;
  b[1] = Math.floor(ms / 2 ** 32) & 0xff;
  b[2] = (ms >>> 24) & 0xff;
  b[3] = (ms >>> 16) & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = (b[6]! & 0x0f) | 0x70;
  b[8] = (b[8]! & 0x3f) | 0x80;
  let s = '';
  for (let i = 0; i < 16; i++) {
    s += hex[b[i]!]!;
    if (i === 3 || i === 5 || i === 7 || i === 9) s += '-';
  }
  return s;
}

/** Event ids: `evt_` and 32 hex characters. */
export const newEventId = (): string => `evt_${randomBytes(16).toString('hex')}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Lookups by a malformed id answer "not found" without asking the store. */
export const isUuid = (v: string): boolean => UUID.test(v);
