import { randomBytes, randomUUID } from 'node:crypto';

export const newId = (): string => randomUUID();

/** Event ids: `evt_` and 32 hex characters. */
export const newEventId = (): string => `evt_${randomBytes(16).toString('hex')}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Lookups by a malformed id answer "not found" without asking the store. */
export const isUuid = (v: string): boolean => UUID.test(v);
