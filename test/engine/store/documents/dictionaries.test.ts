import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CURRENT_DICTIONARY_ID, SHIPPED_DICTIONARIES, dictionaryBytes, dictionaryDirectory } from '../../../../src/engine/store/documents/dictionaries.js';

/**
 * Every document stored names the dictionary it was compressed with and must
 * read back for ten years. So these pins never change: a shipped dictionary is
 * never changed or removed; a new dictionary gets a new id (and a new line
 * here). If this test fails, put the shipped file back; do not edit the pin.
 */
const PINNED: Record<number, string> = {
  1: '295a28e2d5e3903ee090cae7f27774ab87f7c4cbe14e33567ba8b9ff98e0e527',
  2: '7e3feba853135aada808d1854dfcb8c3f394c63a1406c7297b80b42647e9111a',
};
const RULE = 'a shipped dictionary is never changed or removed; train a new one with a new id (dictionaries/README.md)';

describe('the shipped document dictionaries', () => {
  it('each pinned dictionary is still shipped, with its id and its SHA-256', () => {
    for (const [id, sha] of Object.entries(PINNED)) {
      const shipped = SHIPPED_DICTIONARIES.find((d) => d.id === Number(id));
      expect(shipped, `dictionary ${id} was removed from SHIPPED_DICTIONARIES: ${RULE}`).toBeDefined();
      expect(shipped!.sha256, `dictionary ${id}'s pinned SHA-256 changed in dictionaries.ts: ${RULE}`).toBe(sha);
      const file = readFileSync(join(dictionaryDirectory(), shipped!.file));
      expect(createHash('sha256').update(file).digest('hex'), `dictionaries/${shipped!.file} (id ${id}) changed: ${RULE}`).toBe(sha);
      expect(dictionaryBytes(Number(id))!.equals(file)).toBe(true);
    }
  });

  it('every shipped dictionary is pinned here, every file is shipped, ids are distinct and 1..255', () => {
    for (const d of SHIPPED_DICTIONARIES) expect(PINNED[d.id], `dictionary ${d.id} (${d.file}) is shipped but not pinned: add it to PINNED`).toBe(d.sha256);
    const ids = SHIPPED_DICTIONARIES.map((d) => d.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id >= 1 && id <= 255).toBe(true);
    const files = readdirSync(dictionaryDirectory()).filter((f) => f.endsWith('.zdict')).sort();
    expect(files).toEqual(SHIPPED_DICTIONARIES.map((d) => d.file).sort());
    expect(ids).toContain(CURRENT_DICTIONARY_ID);
  });

  it('an id never shipped has no dictionary', () => {
    expect(dictionaryBytes(200)).toBeNull();
  });
});
