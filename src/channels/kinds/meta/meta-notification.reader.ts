import { findUnacceptableValue, UNACCEPTABLE_MESSAGES } from '../../../common/http/input-guards';
import { isRecord } from '../../../common/outbound-http';
import type {
  InboundEvent,
  ItemRefusal,
  ItemSource,
  ParsedNotification,
  SetAsideReason,
} from '../../webhooks/inbound-notification';

/* The readers both of Meta's notification formats (WhatsApp, Messenger) are built from. */

export const STATUSES: ReadonlySet<string> = new Set(['sent', 'delivered', 'read', 'failed']);

/**
 * Ids are kept in indexes (message ids, senders, accounts), and PostgreSQL refuses an index entry
 * over about 2.7 kB; Meta's ids are under 150 characters.
 */
export const MAX_ID_LENGTH = 256;

/** The last instant that both Date and PostgreSQL write as a plain ISO 8601 date (year 9999). */
export const LATEST_INSTANT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export const PHONE = /^\+?\d{6,15}$/;

export const refuse = (reason: SetAsideReason, detail: string): ItemRefusal => ({ reason, detail });
export const isRefusal = (value: unknown): value is ItemRefusal =>
  isRecord(value) && typeof value.reason === 'string' && typeof value.detail === 'string';

export const text = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 ? value : null;
export const recordAt = (value: unknown, key: string): Record<string, unknown> | undefined => {
  const field = isRecord(value) ? value[key] : undefined;
  return isRecord(field) ? field : undefined;
};
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** The whole item, as the API judges a request body: what PostgreSQL could not store. */
export function unacceptable(content: unknown): ItemRefusal | undefined {
  const found = findUnacceptableValue(content);
  return (
    found && refuse(found.reason, `${found.field || 'it'} ${UNACCEPTABLE_MESSAGES[found.reason]}`)
  );
}

export function readId(value: unknown, name: string): string | ItemRefusal {
  if (typeof value !== 'string' || value === '') {
    return refuse('invalid_field', `needs ${name}, a non-empty string`);
  }
  if (value.length > MAX_ID_LENGTH) {
    return refuse('too_long', `${name} is longer than ${MAX_ID_LENGTH} characters`);
  }
  // Ids reach queries and details before any item is judged whole (the account of a change).
  return unacceptable(value) ?? value;
}

/** The account an item is for; Meta sends it as a string, a number is read as its digits. */
export function readAccount(value: unknown, name: string): string | undefined | ItemRefusal {
  if (value === undefined) return undefined;
  return readId(
    typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value,
    name,
  );
}

/**
 * Milliseconds. WhatsApp's timestamps are Unix seconds as strings, Messenger's milliseconds as
 * numbers. `1e20` is a number, but no date: beyond Date's range, toISOString throws.
 */
export function readInstant(
  value: unknown,
  name: string,
  unit: 'seconds' | 'milliseconds',
): number | ItemRefusal {
  const number =
    unit === 'seconds' && typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number !== 'number' || Number.isNaN(number)) {
    return refuse('invalid_field', `needs ${name}, Unix ${unit}`);
  }
  const ms = unit === 'seconds' ? number * 1000 : number;
  if (!(ms > 0 && ms <= LATEST_INSTANT_MS)) {
    return refuse(
      'timestamp_out_of_range',
      `${name} ${String(value).slice(0, 40)} is not an instant between 1970 and 9999`,
    );
  }
  return ms;
}

/**
 * A reader's verdict, or, should it throw on a shape nobody foresaw (a parser never throws: a
 * throw would fail the whole notification on every try), the item set aside for it.
 */
export function safely<T>(read: () => T): T | ItemRefusal {
  try {
    return read();
  } catch (error) {
    return refuse(
      'invalid_field',
      `could not be read (${error instanceof Error ? error.name : 'error'})`,
    );
  }
}

export function judge(
  parsed: ParsedNotification,
  source: ItemSource,
  verdict: InboundEvent | ItemRefusal | undefined,
): void {
  if (verdict === undefined) return;
  if (isRefusal(verdict)) parsed.setAside.push({ ...source, ...verdict });
  else parsed.read.push({ ...source, event: verdict });
}
