import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_PAGE, MAX_PAGE_SIZE, MAX_SKIP, pageOf, pageWindow, type PageWindow } from '../../src/engine/paging.js';

describe('paging', () => {
  it('reads page 1 of 20 by default and brings out-of-range numbers into range', () => {
    expect(pageWindow({})).toEqual({ page: 1, pageSize: 20, offset: 0 });
    expect(pageWindow({ page: '3', pageSize: '10' })).toEqual({ page: 3, pageSize: 10, offset: 20 });
    expect(pageWindow({ page: 0, pageSize: 0 })).toEqual({ page: 1, pageSize: 1, offset: 0 });
    expect(pageWindow({ page: -2, pageSize: 10_000 })).toEqual({ page: 1, pageSize: MAX_PAGE_SIZE, offset: 0 });
  });

  it('takes skip as the offset, page unread, and reports the page the window starts on', () => {
    expect(pageWindow({ page: 5, pageSize: 10, skip: 3 })).toEqual({ page: 2, pageSize: 10, offset: 3 });
    expect(pageWindow({ pageSize: 20, skip: 40 })).toEqual(pageWindow({ pageSize: 20, page: 3 }));
    expect(pageWindow({ skip: -4 })).toEqual({ page: 1, pageSize: 20, offset: 0 });
  });

  it('brings page numbers and skips too large for exact arithmetic back into range', () => {
    expect(pageWindow({ page: '99999999999999999999', pageSize: 200 })).toEqual({ page: MAX_PAGE, pageSize: 200, offset: (MAX_PAGE - 1) * 200 });
    expect(pageWindow({ skip: '99999999999999999999', pageSize: 1 })).toMatchObject({ offset: MAX_SKIP, page: MAX_SKIP + 1 });
    expect(pageWindow({ pageSize: '99999999999999999999' }).pageSize).toBe(MAX_PAGE_SIZE);
    expect(Number.isSafeInteger(MAX_SKIP + MAX_PAGE_SIZE)).toBe(true);
  });

  it('counts pages cut at an offset that is not a multiple of the page size', () => {
    // 45 rows, 20 a page, from row 5: rows 0-4 make page 1, then 5-24, 25-44.
    expect(pageOf(Array(20).fill('x'), 45, pageWindow({ skip: 5, pageSize: 20 }))).toMatchObject({ page: 2, totalPages: 3, hasPreviousPage: true, hasNextPage: true });
  });

  it('counts pages and says whether there are more on either side', () => {
    expect(pageOf(['a', 'b'], 5, pageWindow({ page: 2, pageSize: 2 }))).toEqual({
      items: ['a', 'b'], totalCount: 5, page: 2, pageSize: 2, totalPages: 3, hasNextPage: true, hasPreviousPage: true,
    });
    expect(pageOf(['e'], 5, pageWindow({ page: 3, pageSize: 2 }))).toMatchObject({ totalPages: 3, hasNextPage: false, hasPreviousPage: true });
    expect(pageOf([], 0, pageWindow({}))).toMatchObject({ totalPages: 0, hasNextPage: false, hasPreviousPage: false });
  });

  /** The answer for `window` over rows 0 … total-1, as a list query reads them. */
  const read = (total: number, window: PageWindow) => {
    const rows = Array.from({ length: Math.max(0, Math.min(window.pageSize, total - window.offset)) }, (_, i) => window.offset + i);
    return pageOf(rows, total, window);
  };
  const total = fc.integer({ min: 0, max: 2000 });
  const size = fc.oneof(fc.integer({ min: -5, max: MAX_PAGE_SIZE + 50 }), fc.constant(undefined));
  const asked = fc.oneof(
    fc.record({ page: fc.oneof(fc.integer({ min: -3, max: 300 }), fc.constant(undefined)), pageSize: size }),
    fc.record({ skip: fc.integer({ min: -3, max: 3000 }), pageSize: size, page: fc.oneof(fc.integer({ min: -3, max: 300 }), fc.constant(undefined)) }),
  );
  const RUNS = { seed: 20_221, numRuns: 3000 };

  it('answers a consistent page for any page, page size and skip (fast-check, fixed seed)', () => {
    fc.assert(
      fc.property(total, asked, (n, q) => {
        const window = pageWindow(q);
        const r = read(n, window);
        expect(r.page).toBeGreaterThanOrEqual(1);
        expect(r.hasPreviousPage).toBe(r.page > 1);
        if (r.items.length > 0) {
          expect(r.page).toBeLessThanOrEqual(r.totalPages);
          expect(r.hasNextPage).toBe(r.page < r.totalPages);
        } else {
          expect(r.hasNextPage).toBe(false);
          expect(r.page).toBeGreaterThan(r.totalPages); // past the last row
        }
        // Pages cut at a multiple of the page size are counted the usual way.
        if (window.offset % window.pageSize === 0) expect(r.totalPages).toBe(Math.ceil(n / window.pageSize));
        // A skip that is a multiple of the page size is the same request as that page.
        if (window.offset % window.pageSize === 0) expect(read(n, pageWindow({ page: r.page, pageSize: r.pageSize }))).toEqual(r);
      }),
      RUNS,
    );
  });

  it('visits every row once, in order, following hasNextPage from any window (fast-check, fixed seed)', () => {
    fc.assert(
      fc.property(total, asked, (n, q) => {
        let window = pageWindow(q);
        const first = read(n, window);
        const seen: number[] = [...first.items];
        let r = first;
        let pages = 1;
        while (r.hasNextPage) {
          window = pageWindow({ skip: window.offset + window.pageSize, pageSize: window.pageSize });
          r = read(n, window);
          expect(r.page).toBe(first.page + pages);
          expect(r.totalPages).toBe(first.totalPages);
          seen.push(...r.items);
          pages++;
        }
        const start = Math.min(pageWindow(q).offset, n);
        expect(seen).toEqual(Array.from({ length: n - start }, (_, i) => start + i));
        if (first.items.length > 0) expect(r.page).toBe(first.totalPages);
      }),
      { ...RUNS, numRuns: 500 },
    );
  });
});
