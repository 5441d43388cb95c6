import { describe, expect, it } from 'vitest';
import { MAX_PAGE_SIZE, pageOf, pageWindow } from '../../src/engine/paging.js';

describe('paging', () => {
  it('reads page 1 of 20 by default and brings out-of-range numbers into range', () => {
    expect(pageWindow({})).toEqual({ page: 1, pageSize: 20, offset: 0 });
    expect(pageWindow({ page: '3', pageSize: '10' })).toEqual({ page: 3, pageSize: 10, offset: 20 });
    expect(pageWindow({ page: 0, pageSize: 0 })).toEqual({ page: 1, pageSize: 1, offset: 0 });
    expect(pageWindow({ page: -2, pageSize: 10_000 })).toEqual({ page: 1, pageSize: MAX_PAGE_SIZE, offset: 0 });
  });

  it('lets skip replace the offset the page implies', () => {
    expect(pageWindow({ page: 5, pageSize: 10, skip: 3 })).toEqual({ page: 5, pageSize: 10, offset: 3 });
    expect(pageWindow({ skip: -4 })).toEqual({ page: 1, pageSize: 20, offset: 0 });
  });

  it('counts pages and says whether there are more on either side', () => {
    expect(pageOf(['a', 'b'], 5, pageWindow({ page: 2, pageSize: 2 }))).toEqual({
      items: ['a', 'b'], totalCount: 5, page: 2, pageSize: 2, totalPages: 3, hasNextPage: true, hasPreviousPage: true,
    });
    expect(pageOf(['e'], 5, pageWindow({ page: 3, pageSize: 2 }))).toMatchObject({ totalPages: 3, hasNextPage: false, hasPreviousPage: true });
    expect(pageOf([], 0, pageWindow({}))).toMatchObject({ totalPages: 0, hasNextPage: false, hasPreviousPage: false });
  });
});
