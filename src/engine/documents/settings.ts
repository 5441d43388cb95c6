import type { Engine } from '../engine-types.js';
import { getSetting } from '../settings/settings.js';
import type { DocumentSettings } from './settings-shape.js';

/**
 * The settings the document pipeline reads, in one place: today only the
 * sequence mode (whether the client or the service numbers the e-CF, which
 * decides whether encf and sequenceExpiresOn are required or refused).
 */

export const DOCUMENT_SETTINGS = ['sequences.mode'] as const;
export type DocumentSettingKey = (typeof DOCUMENT_SETTINGS)[number];

export type { DocumentSettings };

/** From values a caller read together with its other settings (issuing reads all of them in one statement). */
export const documentSettingsOf = (values: Readonly<Record<DocumentSettingKey, unknown>>): DocumentSettings => ({
  sequenceMode: values['sequences.mode'] as DocumentSettings['sequenceMode'],
});

/** Reads them for a tenant, each as getSetting answers it. */
export async function readDocumentSettings(engine: Engine, tenantId: string): Promise<DocumentSettings> {
  const values = await Promise.all(DOCUMENT_SETTINGS.map(async (key) => [key, await getSetting(engine, key, tenantId)] as const));
  return documentSettingsOf(Object.fromEntries(values) as Record<DocumentSettingKey, unknown>);
}
