import { afterEach, describe, expect, it, vi } from 'vitest';
import { isUuid, newId } from '../../src/engine/ids.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ids', () => {
  it('are UUID version 7: unique, and ordered by the millisecond they were made', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const made: string[] = [];
    for (let ms = 0; ms < 50; ms++) {
      vi.setSystemTime(Date.UTC(2026, 2, 10, 14) + ms * 7);
      for (let i = 0; i < 200; i++) made.push(newId());
    }
    expect(new Set(made).size).toBe(made.length);
    for (const id of made) {
      expect(isUuid(id), id).toBe(true);
      expect(id[14], id).toBe('7');
      expect('89ab', id).toContain(id[19]);
    }
    const first = made[0]!.replace(/-/g, '').slice(0, 12);
    expect(parseInt(first, 16)).toBe(Date.UTC(2026, 2, 10, 14));
    const byMs = made.filter((_, i) => i % 200 === 0);
    expect([...byMs].sort()).toEqual(byMs);
  });
});
