import type { Engine } from '../engine-types.js';
import { getSettings } from '../settings/settings.js';
import type { SettingValues } from '../settings/catalogue.js';
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
export const documentSettingsOf = (values: Readonly<SettingValues<DocumentSettingKey>>): DocumentSettings => ({
  sequenceMode: values['sequences.mode'],
});

/** Reads them for a tenant in one statement, each checked against its schema. */
export async function readDocumentSettings(engine: Engine, tenantId: string): Promise<DocumentSettings> {
  return documentSettingsOf(await getSettings(engine, DOCUMENT_SETTINGS, tenantId));
}
