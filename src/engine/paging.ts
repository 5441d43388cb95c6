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

export interface PageWindow {
  readonly page: number;
  readonly pageSize: number;
  /** Rows before the page: the limit of the query is `pageSize`. */
  readonly offset: number;
}

/**
 * The rows a list query asks for. Out-of-range numbers are brought into
 * range rather than refused; `skip`, where a list takes it, replaces the
 * offset that `page` implies.
 */
export function pageWindow(q: { readonly page?: number | string; readonly pageSize?: number | string; readonly skip?: number | string }): PageWindow {
  const pageSize = Math.min(Math.max(Number(q.pageSize ?? DEFAULT_PAGE_SIZE), 1), MAX_PAGE_SIZE);
  const page = Math.max(Number(q.page ?? 1), 1);
  const offset = q.skip !== undefined ? Math.max(Number(q.skip), 0) : (page - 1) * pageSize;
  return { page, pageSize, offset };
}

/** The paged result of the `items` a window read out of `totalCount`. */
export function pageOf<I>(items: I[], totalCount: number, window: PageWindow): { items: I[] } & Static<typeof PageFields> {
  return {
    items,
    totalCount,
    page: window.page,
    pageSize: window.pageSize,
    totalPages: Math.ceil(totalCount / window.pageSize),
    hasNextPage: window.offset + items.length < totalCount,
    hasPreviousPage: window.offset > 0,
  };
}
