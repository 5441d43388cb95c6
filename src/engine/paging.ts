import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Integer } from './schema-types.js';

/**
 * Paged lists (the contract's "Paged result"): the page parameters, the
 * window they ask for and the result shape, so every list pages by the same
 * rule.
 */

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 200;

/** The 1-based page number parameter. */
export const PageNumber = () => Integer({ description: '1-based, default 1' });

/** The page size parameter. */
export const PageSize = () => Integer({ description: `default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}` });

const PAGE_FIELDS = {
  totalCount: Type.Integer(),
  page: Type.Integer(),
  pageSize: Type.Integer(),
  totalPages: Type.Integer(),
  hasNextPage: Type.Boolean(),
  hasPreviousPage: Type.Boolean(),
};
const PageFields = Type.Object(PAGE_FIELDS);

/** The paged result of `item`s. */
export const Paged = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item), ...PAGE_FIELDS });

/**
 * Pages past this one are brought back to it: with the largest page size its
 * offset is still an exact JavaScript number and a 64-bit SQL offset (a page
 * number of 10^20 made both the SQL and the arithmetic fail).
 */
export const MAX_PAGE = 1_000_000_000;
/** Skip past this is brought back to it, for the same reason. */
export const MAX_SKIP = MAX_PAGE * MAX_PAGE_SIZE;

export interface PageWindow {
  /** The 1-based page number the answer reports. */
  readonly page: number;
  readonly pageSize: number;
  /** Rows before the page: the limit of the query is `pageSize`. */
  readonly offset: number;
}

type PageParameter = number | string | undefined;

const clamp = (n: number, min: number, max: number) => Math.min(Math.max(n, min), max);
/** The parameters arrive validated as integers (JSON or text); anything else takes the default. */
const whole = (v: PageParameter, fallback: number) => {
  const n = v === undefined ? fallback : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
};

/**
 * The rows a list query asks for. Out-of-range numbers are brought into range
 * rather than refused. `skip`, where a list takes it, is the offset itself and
 * `page` is then not read: the page reported is the one the window starts on
 * when pages are cut at the offset, ceil(skip / pageSize) + 1 (so Skip=40 with
 * PageSize=20 is page 3, the same answer as Page=3).
 */
export function pageWindow(q: { readonly page?: PageParameter; readonly pageSize?: PageParameter; readonly skip?: PageParameter }): PageWindow {
  const pageSize = clamp(whole(q.pageSize, DEFAULT_PAGE_SIZE), 1, MAX_PAGE_SIZE);
  if (q.skip !== undefined) {
    const offset = clamp(whole(q.skip, 0), 0, MAX_SKIP);
    return { page: Math.ceil(offset / pageSize) + 1, pageSize, offset };
  }
  const page = clamp(whole(q.page, 1), 1, MAX_PAGE);
  return { page, pageSize, offset: (page - 1) * pageSize };
}

/**
 * The paged result of the `items` a window read out of `totalCount`. Pages
 * are cut at the window's offset: the rows before it make
 * ceil(before / pageSize) pages (the first one short when the offset is not a
 * multiple of the page size) and the rows from it on make the rest. For an
 * offset that is a multiple of the page size (every Page, and a Skip such as
 * 40 with PageSize 20) that is the usual ceil(totalCount / pageSize). So
 * hasPreviousPage is page > 1, hasNextPage is page < totalPages, and a window
 * past the last row has no items and a page above totalPages.
 */
export function pageOf<I>(items: I[], totalCount: number, window: PageWindow): { items: I[] } & Static<typeof PageFields> {
  const { pageSize, offset } = window;
  const before = Math.min(offset, totalCount);
  const from = Math.max(totalCount - offset, 0);
  return {
    items,
    totalCount,
    page: window.page,
    pageSize,
    totalPages: Math.ceil(before / pageSize) + Math.ceil(from / pageSize),
    hasNextPage: offset + items.length < totalCount,
    hasPreviousPage: offset > 0,
  };
}
