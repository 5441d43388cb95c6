import { Type } from '@sinclair/typebox';
import type { Engine } from '../engine-types.js';
import { parseJsonColumn } from '../json-column.js';
import { inTransaction } from '../store/database.js';
import { DocumentDamaged, readEcfXml } from '../store/documents/index.js';
import { FILL_KEY } from '../store/migrations/0029-note-references.js';

const FILL_BATCH = 500;
/** The fill's cursor in platform_state: the last store key done (migration 0029 writes it; a number, or its text on PostgreSQL's bigint). */
const FillCursor = Type.Object({ after: Type.Optional(Type.Union([Type.Number(), Type.String(), Type.Null()])) });
const REFERENCE = /<NCFModificado>([^<]*)<\/NCFModificado>/;
const OTHER_ISSUER = /<RNCOtroContribuyente>([^<]*)<\/RNCOtroContribuyente>/;
const ISSUER = /<RNCEmisor>([^<]*)<\/RNCEmisor>/;

/**
 * What `ecf.modifies_encf` keeps for a note: its NCFModificado, unless
 * RNCOtroContribuyente names another taxpayer, whose e-NCF it is. Issuing
 * reads the three from the request, the fill below from the signed XML.
 */
export function modifiedHere(reference: { modified?: string | null; otherIssuerRnc?: string | null; issuerRnc: string }): string | null {
  const { modified, otherIssuerRnc } = reference;
  return modified && (!otherIssuerRnc || otherIssuerRnc === reference.issuerRnc) ? modified : null;
}

/** modifiedHere of a stored note, from its signed XML. */
export function modifiedEncfOf(xml: Buffer): string | null {
  const text = xml.toString('utf8');
  return modifiedHere({ modified: REFERENCE.exec(text)?.[1], otherIssuerRnc: OTHER_ISSUER.exec(text)?.[1], issuerRnc: ISSUER.exec(text)?.[1] ?? '' });
}

/**
 * Fills `modifies_encf` of the notes stored before migration 0029, which
 * left a cursor (a store key) in platform_state: in batches by store key,
 * the cursor saved after each, removed at the end. Run as the engine opens;
 * a second process doing the same writes the same values.
 */
export async function fillNoteReferences(engine: Pick<Engine, 'db' | 'documents' | 'clock'>): Promise<number> {
  const { db } = engine;
  const cursor = await db.selectFrom('platform_state').select('value').where('key', '=', FILL_KEY).executeTakeFirst();
  if (!cursor) return 0;
  let after = Number(parseJsonColumn(FillCursor, cursor.value, `platform_state.value of ${FILL_KEY}`).after) || 0;
  let filled = 0;
  for (;;) {
    const rows = await db
      .selectFrom('ecf')
      .innerJoin('ecf_documents', 'ecf_documents.ecf_key', 'ecf.store_key')
      .select(['ecf.store_key', 'ecf.id', 'ecf.encf', 'ecf.document_hash', 'ecf_documents.xml', 'ecf_documents.xml_sha256'])
      .where('ecf.store_key', '>', after)
      .where('ecf.type', 'in', [33, 34])
      .orderBy('ecf.store_key')
      .limit(FILL_BATCH)
      .execute();
    if (rows.length === 0) break;
    const found: { key: number; encf: string }[] = [];
    for (const row of rows) {
      // A damaged document keeps its note unlinked rather than the store closed; `ecf store verify` names it.
      const xml = await readEcfXml(engine.documents, db, row).catch((e: unknown) => {
        if (e instanceof DocumentDamaged) return null;
        throw e;
      });
      const encf = xml && modifiedEncfOf(xml);
      if (encf) found.push({ key: Number(row.store_key), encf });
    }
    after = Number(rows[rows.length - 1]!.store_key);
    await inTransaction(db, async (tx) => {
      for (const f of found) await tx.updateTable('ecf').set({ modifies_encf: f.encf }).where('store_key', '=', f.key).execute();
      await tx.updateTable('platform_state').set({ value: JSON.stringify({ after }), updated_at: engine.clock.now().toISOString() }).where('key', '=', FILL_KEY).execute();
    });
    filled += found.length;
  }
  await db.deleteFrom('platform_state').where('key', '=', FILL_KEY).execute();
  return filled;
}
