import { describe, expect, it } from 'vitest';
import { issueEcf } from '../../../src/engine/ecf/issue.js';
import { annulSequences } from '../../../src/engine/sequences/annulments.js';
import { nextNumber, setNextNumber } from '../../../src/engine/sequences/next-number.js';
import { allocate, listRanges } from '../../../src/engine/sequences/ranges.js';
import { invoice31 } from '../../helpers.js';
import { annulHarness, line } from './tools.js';

type H = Awaited<ReturnType<typeof annulHarness>>;

const set = (h: H, next: number | string, extra: Record<string, unknown> = {}) =>
  setNextNumber(h.engine, { tenantId: h.tenant.id, environment: 'test', type: 31, next, ...extra });
const take = async (h: H) => (await allocate(h.engine, h.tenant.id, { environment: 'test', type: 31 })).encf;
const pointers = async (h: H) =>
  (await listRanges(h.engine, h.tenant.id)).filter((r) => r.environment === 'test' && r.type === 31).map((r) => [r.rangeFrom, r.next, r.remaining]);

describe('setNextNumber (ecf sequence next --set)', () => {
  it('moves forward past lower ranges, back only with consent and never onto a used number, and steps over annulled numbers', async () => {
    const h = await annulHarness(); // type 31 in test: 1–1000 and 1001–30000
    await issueEcf(h.engine, h.tenant.id, { idempotencyKey: 'a', payload: invoice31() });
    expect(await nextNumber(h.engine, { tenantId: h.tenant.id, environment: 'test', type: '31' })).toMatchObject({ next: 2, nextEncf: 'E310000000002' });

    // Forward into the second range: the first is closed, or the allocator would go on handing out its 2–1000.
    const moved = await set(h, 1500);
    expect(moved).toMatchObject({ environment: 'test', type: 31, next: 1500, nextEncf: 'E310000001500', previous: 2, previousEncf: 'E310000000002' });
    expect(await pointers(h)).toEqual([[1, 1001, 0], [1001, 1500, 28_501]]);
    await issueEcf(h.engine, h.tenant.id, { idempotencyKey: 'b', payload: invoice31() });
    expect((await nextNumber(h.engine, { tenantId: h.tenant.id, environment: 'test', type: 31 })).next).toBe(1501);

    // Back down needs consent; with it, down to just above the highest number this tenant issued.
    await set(h, 1700);
    await expect(set(h, 1600)).rejects.toMatchObject({ kind: 'conflict', code: 'Sequence.Backwards' });
    expect(await pointers(h)).toEqual([[1, 1001, 0], [1001, 1700, 28_301]]);
    expect(await set(h, 1600, { backwards: true })).toMatchObject({ next: 1600, previous: 1700 });
    const used = set(h, 1400, { backwards: true });
    await expect(used).rejects.toMatchObject({ kind: 'conflict', code: 'Sequence.NumbersUsed' });
    await expect(used).rejects.toThrow(/E310000001400 is at or below E310000001500, which this tenant already used in test.*from this range is 1501/);
    expect(await set(h, 1501, { backwards: true })).toMatchObject({ next: 1501 });
    // Within the first range, backwards: E31…1 was issued there.
    await expect(set(h, 1, { backwards: true })).rejects.toMatchObject({ code: 'Sequence.NumbersUsed' });

    // Landing on annulled numbers steps past them; moving back below them counts them again.
    await annulSequences(h.engine, h.tenant.id, { environment: 'test', reason: 'rollo dañado', lines: [line(31, 1800, 1850)] });
    expect(await set(h, 1820)).toMatchObject({ next: 1851 });
    expect(await pointers(h)).toEqual([[1, 1001, 0], [1001, 1851, 28_150]]);
    expect(await set(h, 1790, { backwards: true })).toMatchObject({ next: 1790 });
    expect(await pointers(h)).toEqual([[1, 1001, 0], [1001, 1790, 28_160]]);
    for (let n = 1790; n < 1799; n++) await take(h);
    expect(await take(h)).toBe('E310000001799');
    expect(await take(h)).toBe('E310000001851');

    // The end of a range closes it; nothing left in the type means no next number.
    expect(await set(h, 30_001)).toMatchObject({ next: null, nextEncf: null, previous: 1852 });
    await expect(take(h)).rejects.toMatchObject({ code: 'Sequence.Exhausted' });
  });

  it('refuses a number outside the loaded ranges or the bounds, naming the field, and changes nothing', async () => {
    const h = await annulHarness();
    const before = await listRanges(h.engine, h.tenant.id);
    await expect(set(h, 40_000)).rejects.toMatchObject({
      code: 'Validation.Failed',
      errors: [{ path: 'next', code: 'Sequence.OutsideRange', message: '40000 is in no loaded range of type 31 in test (loaded: 1–1000, 1001–30000)' }],
    });
    await expect(setNextNumber(h.engine, { tenantId: h.tenant.id, environment: 'cert', type: 31, next: 5 })).rejects.toMatchObject({
      errors: [{ path: 'next', code: 'Sequence.OutsideRange', message: expect.stringContaining('none is loaded; add one with `ecf sequence add`') }],
    });
    await expect(set(h, 0)).rejects.toMatchObject({ errors: [{ path: 'next', code: 'Sequence.OutOfBounds' }] });
    await expect(set(h, 'doce')).rejects.toMatchObject({ errors: [expect.objectContaining({ path: 'next' })] });
    await expect(setNextNumber(h.engine, { tenantId: h.tenant.id, environment: 'test', type: 30, next: 5 })).rejects.toMatchObject({
      errors: [expect.objectContaining({ path: 'type' })],
    });
    expect(await listRanges(h.engine, h.tenant.id)).toEqual(before);
  });
});
