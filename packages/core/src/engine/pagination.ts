/** List pagination: `limit`/`offset`/opaque `cursor` in, the protocol's `pagination` object out. */
import type { ListQuery } from '../api/ojs-api.js';
import type { Pagination } from '../api/responses.js';
import { invalidField } from '../schemas/fields.js';

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 1_000;

/** Resolves limit/offset; a cursor is the offset of the next page, base64-encoded. */
export function pageWindow(query: ListQuery | undefined): { limit: number; offset: number } {
  const rawLimit = query?.limit ?? DEFAULT_PAGE_LIMIT;
  if (!Number.isInteger(rawLimit) || rawLimit < 1) invalidField('limit', 'a positive integer', rawLimit);
  let offset = query?.offset ?? 0;
  if (!Number.isInteger(offset) || offset < 0) invalidField('offset', 'a non-negative integer', offset);
  if (query?.cursor) {
    const decoded = decodeCursor(query.cursor);
    if (!Number.isInteger(decoded) || decoded < 0) invalidField('cursor', 'a cursor returned by a previous page', query.cursor);
    offset = decoded;
  }
  return { limit: Math.min(rawLimit, MAX_PAGE_LIMIT), offset };
}

export function pagination(total: number, limit: number, offset: number): Pagination {
  const hasMore = offset + limit < total;
  return { total, limit, offset, has_more: hasMore, ...(hasMore ? { next_cursor: btoa(`o:${offset + limit}`) } : {}) };
}

function decodeCursor(cursor: string): number {
  try {
    const text = atob(cursor);
    return text.startsWith('o:') ? Number(text.slice(2)) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** One page of an in-memory list. */
export function page<T>(items: readonly T[], query: ListQuery | undefined): { items: T[]; pagination: Pagination } {
  const { limit, offset } = pageWindow(query);
  return { items: items.slice(offset, offset + limit), pagination: pagination(items.length, limit, offset) };
}
