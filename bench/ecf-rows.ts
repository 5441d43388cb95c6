// The rows of one accepted (or otherwise settled) e-CF as the engine stores them, for the big-store
// bench: the `ecf` row, its documents (drawn from the pool of distinct signed documents, with the
// row's own e-NCF written into the bytes, same length, so no two rows store the same bytes), its
// `ecf_attempts` row and the `ecf.submitted` / `ecf.accepted` events that submission emits.
import { createHash, randomFillSync } from 'node:crypto';
import { toRowInstant } from '../src/engine/clock.js';
import { newEventId, newId } from '../src/engine/ids.js';
import { ecfView, taxauthToStore } from '../src/engine/ecf/views.js';
import { searchKey } from '../src/engine/ecf/search-key.js';
import type { PoolDocument } from './corpus/pool.js';
import { generator } from './corpus/random.js';

const STATUSES = [['accepted', 0.85], ['signed', 0.05], ['accepted_conditional', 0.04], ['rejected', 0.03], ['failed', 0.02], ['review', 0.01]] as const;
const ENVIRONMENTS = [['production', 0.92], ['test', 0.06], ['cert', 0.02]] as const;
const FIRST = ['Constructora', 'Ferretería', 'Distribuidora', 'Inversiones', 'Comercial', 'Servicios', 'Agroindustrial', 'Farmacia', 'Colmado', 'Importadora'];
const SECOND = ['del Caribe', 'Quisqueya', 'Ozama', 'Cibao', 'Las Américas', 'Ñoño', 'Duarte', 'del Este', 'Santo Domingo', 'Bávaro'];

/** `text` with every occurrence of `from` overwritten by `to` (same length), in a copy. */
export function rewritten(bytes: Buffer, from: string, to: string): Buffer {
  const out = Buffer.from(bytes);
  const needle = Buffer.from(from);
  for (let at = out.indexOf(needle); at >= 0; at = out.indexOf(needle, at + needle.length)) out.write(to, at);
  return out;
}

/** The note's XML with its NCFModificado replaced by `encf` (both 13 characters, so the bytes keep their length). */
function noteModifying(xml: Buffer, encf: string): Buffer {
  const found = /<NCFModificado>([^<]*)<\/NCFModificado>/.exec(xml.toString('latin1'));
  return found ? rewritten(xml, found[0], `<NCFModificado>${encf}</NCFModificado>`) : xml;
}

/**
 * Random bytes cut from one buffer filled 64 KB at a time (each a copy of its own): randomBytes for
 * a few bytes at a time was about a tenth of the loading thread's time.
 */
const randomBytes = (() => {
  const pool = Buffer.allocUnsafe(65_536);
  let at = pool.length;
  return (n: number): Buffer => {
    if (at + n > pool.length) {
      randomFillSync(pool);
      at = 0;
    }
    return Buffer.from(pool.subarray(at, (at += n)));
  };
})();

/** retention.events_days's default (src/engine/settings/catalogue.ts). */
const EVENTS_DAYS = 30;

export interface Generated {
  readonly ecf: Record<string, unknown>;
  readonly document: { ecf_key: number; xml: Buffer; rfce_xml: Buffer | null };
  readonly attempts: Record<string, unknown>[];
  readonly events: Record<string, unknown>[];
  /** Duplicate detection's row, kept only for the last seven days (the retention job deletes older ones). */
  readonly fingerprints: Record<string, unknown>[];
}

export interface RowsOptions {
  readonly rows: number;
  readonly tenantId: string;
  /** The tenant's store key (tenants.store_key), which `ecf` carries instead of its id (migration 0021). */
  readonly tenantKey: number;
  /** The first row's store key (ecf.store_key, migration 0022); the rows take the next ones in turn (default 1: an empty store). */
  readonly firstKey?: number;
  readonly rnc: string;
  /** Whether the bench stores the documents: the row then leaves its digest to ecf_documents.xml_sha256, as the engine does. */
  readonly documents: boolean;
  readonly rangeId: string;
  readonly pool: readonly PoolDocument[];
  readonly start: number;
  readonly end: number;
}

export function rowMaker(o: RowsOptions) {
  const rnd = generator(0x2545f491);
  const pick = <T>(weighted: readonly (readonly [T, number])[]): T => {
    let r = rnd();
    for (const [v, w] of weighted) if ((r -= w) < 0) return v;
    return weighted[weighted.length - 1]![0];
  };
  const buyers = Array.from({ length: 20_000 }, (_, i) => ({
    rnc: String(100_000_000 + ((i * 7919) % 900_000_000)).slice(0, 9),
    name: `${FIRST[i % 10]} ${SECOND[Math.floor(i / 10) % 10]} ${i} SRL`,
  }));
  const counters = new Map<string, number>();
  return (i: number): Generated => {
    const doc = o.pool[Math.floor(rnd() * o.pool.length)]!;
    const type = doc.type;
    const issuedMs = o.start + Math.floor(((i + rnd()) / o.rows) * (o.end - o.start));
    const issuedAt = new Date(issuedMs).toISOString();
    const issueDate = new Date(issuedMs - 4 * 3_600_000).toISOString().slice(0, 10);
    const environment = pick(ENVIRONMENTS);
    const status = pick(STATUSES);
    const counterKey = `${environment}${type}`;
    const seq = (counters.get(counterKey) ?? 0) + 1;
    counters.set(counterKey, seq);
    const encf = `E${type}${String(seq).padStart(10, '0')}`;
    const cents = Math.round(Math.exp(Math.log(5_000) + rnd() * (Math.log(200_000_000) - Math.log(5_000))));
    const monto = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
    const rfce = doc.rfce !== null;
    const buyer = type === 32 && rfce && rnd() < 0.7 ? null : buyers[Math.floor(rnd() * buyers.length)]!;
    // A note modifies an invoice of its environment issued before it: its NCFModificado is rewritten (same length) and kept in the row, as issuing keeps it.
    const invoices = counters.get(`${environment}31`) ?? 0;
    const modifies = (type === 33 || type === 34) && invoices > 0 ? `E31${String(1 + Math.floor(rnd() * invoices)).padStart(10, '0')}` : null;
    const pooled = modifies ? noteModifying(doc.xml, modifies) : doc.xml;
    const xml = rewritten(pooled, doc.encf, encf);
    const rfceXml = doc.rfce ? rewritten(doc.rfce, doc.encf, encf) : null;
    const id = newId();
    const securityCode = randomBytes(3).toString('hex').toUpperCase();
    const done = status !== 'signed';
    const at = (s: number) => new Date(issuedMs + s * 1000).toISOString();
    // Only a row without its document (document_hash) or with events (the view) needs the digest here.
    const hash = () => createHash('sha256').update(xml).digest('hex');
    const trackId = newId();
    const taxauth = done
      ? {
          trackId,
          status: status === 'rejected' ? 'Rechazado' : 'Aceptado',
          statusCode: status === 'rejected' ? 2 : 1,
          sequenceUsed: true,
          messages: [],
          submittedAt: at(2),
          receivedAt: at(3),
          processedAt: at(9),
        }
      : null;
    const key = (o.firstKey ?? 1) + i;
    const ecf = {
      store_key: key,
      id,
      tenant_key: o.tenantKey,
      environment,
      type,
      encf,
      status,
      sequence_expires_on: type === 32 || type === 34 ? null : '2027-12-31',
      issue_date: issueDate,
      // Milliseconds, and no signed_at: signed at the issue instant, as the engine writes it (migration 0022).
      issued_at: toRowInstant(issuedAt),
      signed_at: null,
      security_code: securityCode,
      // Empty: signing/row-qr.ts rebuilds it from the row, as for every e-CF the engine issues (migration 0020).
      qr_url: '',
      submits_rfce: rfce ? 1 : 0,
      internal_number: rnd() < 0.6 ? `FAC-${String(i + 1).padStart(8, '0')}` : null,
      tolerance_warning: null,
      signed_during_contingency: 0,
      monto_total: monto,
      monto_total_cents: cents,
      buyer_rnc: buyer?.rnc ?? null,
      buyer_name: buyer?.name ?? null,
      buyer_name_key: buyer ? searchKey(buyer.name) : null,
      document_hash: o.documents ? '' : hash(),
      idempotency_key: newId(),
      request_hash: randomBytes(32),
      fingerprint: '',
      sequence_range_id: o.rangeId,
      taxauth: taxauth ? taxauthToStore(taxauth) : null,
      retry: status === 'failed' ? JSON.stringify({ count: 3, max: 3, nextAttemptAt: null }) : null,
      updated_at: done ? toRowInstant(at(9)) : null,
      modifies_encf: modifies,
    };
    const attempts = done
      ? [
          {
            ecf_key: key,
            attempt: 1,
            outcome: status,
            track_id: trackId,
            status_code: taxauth!.statusCode,
            status_text: taxauth!.status,
            sequence_used: 1,
            messages: '[]',
            retry_decision: null,
            xml_sha256: null,
            recorded_at: toRowInstant(at(9)),
          },
        ]
      : [];
    const view = () => ecfView({ ...ecf, issuer_rnc: o.rnc, xml_sha256: Buffer.from(hash(), 'hex') } as never);
    const event = (type: string, s: number, data: unknown) => ({
      id: newEventId(),
      tenant_id: o.tenantId,
      type,
      api_version: 1,
      created_at: at(s),
      data: JSON.stringify(data),
      fact_key: null,
    });
    // The store-clean job removes events once older than retention.events_days (30 by default) and
    // no delivery names them, so a store in its steady state holds only the last month's.
    const events = done && issuedMs >= o.end - EVENTS_DAYS * 86_400_000
      ? ((v) => [event('ecf.submitted', 3, { ...v, status: 'signed', taxauth: { trackId, submittedAt: taxauth!.submittedAt } }), event(`ecf.${status}`, 9, v)])(view())
      : [];
    const fingerprints = issuedMs >= o.end - 7 * 86_400_000 ? [{ tenant_id: o.tenantId, fingerprint: randomBytes(32).toString('hex'), issued_at: issuedAt, ecf_id: id }] : [];
    return { ecf, document: { ecf_key: key, xml, rfce_xml: rfceXml }, attempts, events, fingerprints };
  };
}
