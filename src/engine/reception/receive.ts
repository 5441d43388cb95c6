import { createHash } from 'node:crypto';
import { signingCredentials } from '../certificates/certificates.js';
import { xmlDate } from '../documents/ecf-xml.js';
import type { Engine } from '../engine-types.js';
import { EngineError, ValidationError, type FieldError } from '../errors.js';
import { emit } from '../events/outbox.js';
import { newId } from '../ids.js';
import { Dec } from '../money.js';
import type { Environment } from '../schema-types.js';
import { parseXml, textOf, verifySignature } from '../signing/verify.js';
import { signingKey } from '../signing/xmldsig.js';
import { afterCommit, inTransaction, type Db } from '../store/database.js';
import { isUniqueViolation } from '../store/locking.js';
import { requireTenant, tenantKey } from '../tenants/lookup.js';
import { appendJournal } from '../journal/append.js';
import { DOCUMENT_KINDS, type DocumentKind } from '../xml/schema-trees.generated.js';
import { validateAgainstSchema } from '../xml/xsd.js';
import { NOT_RECEIVED, isApprovalAutomatic, isoFromXmlDate, signArecf, type NotReceivedCode } from './documents.js';
import { readArecf } from './stored.js';
import { RECEIVED_COLUMNS, inboundApprovalView, summaryView, type InboundApprovalView, type ReceivedEcfSummary } from './views.js';

/**
 * The receiver's two inbound operations (NOTES §10): an e-CF from another
 * issuer, answered with a signed ARECF whatever the verdict, and an ACECF
 * from an external buyer over one of the tenant's e-CF.
 */

export interface InboundUpload {
  readonly xml: Buffer;
  /** The multipart file name, `{RNCEmisor}{eNCF}.xml` by the authority's rule; used when the document cannot be read. */
  readonly fileName?: string | null;
}

export interface Reception {
  /** The signed ARECF, as sent and stored. */
  readonly arecf: string;
  readonly received: ReceivedEcfSummary;
  /** true when these exact bytes had been received before: the first answer is given again and nothing is stored. */
  readonly replay: boolean;
}

const RNC = /^(?:\d{9}|\d{11})$/;
const ENCF = /^E\d{12}$/;
const FILE_NAME = /^(\d{9}|\d{11})(E\d{12})\.xml$/i;
/** Largest document the receiver reads. */
export const MAX_RECEIVED_BYTES = 4 * 1024 * 1024;

const REASONS: Record<NotReceivedCode, string> = {
  1: 'Error de especificación',
  2: 'Error de firma digital',
  3: 'Envío duplicado',
  4: 'RNC Comprador no corresponde',
};

/**
 * The only types one taxpayer sends another (NOTES §10.1): 32, 41, 43, 45, 46
 * and 47 go to consumers, the authority or abroad, never to a receiver like
 * this one, and are answered not received, code 1, whatever else they hold.
 */
export const EXCHANGED_TYPES: ReadonlySet<number> = new Set([31, 33, 34, 44]);

const unreadable = (message: string) => new ValidationError([{ path: 'xml', code: 'Reception.Unidentifiable', message }], message);

function asText(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The child element's text under the root's Encabezado/<section>, else the first element of that name. */
function field(root: import('@xmldom/xmldom').Element, name: string): string | null {
  return textOf(root, name);
}

/** TipoeCF as written inside; the type is read from the e-NCF, and the two must agree. */
const declaredType = (root: import('@xmldom/xmldom').Element): number | null => {
  const text = field(root, 'TipoeCF');
  return text && /^\d{2}$/.test(text) ? Number(text) : null;
};

/**
 * Receives an e-CF from another issuer. The checks, in order (NOTES §10.1):
 * a type taxpayers exchange (31, 33, 34, 44) whose TipoeCF agrees with its
 * e-NCF, and the official schema of that type (else not received, code 1), the signature
 * (2), an e-CF already received from that issuer with that e-NCF (3), the
 * buyer's RNC against the tenant's (4). Every reception is stored with its
 * bytes and the signed ARECF and emits `inbound_ecf.received`; the same bytes
 * sent again get the first answer again and are stored once. A document
 * that names no issuer RNC and e-NCF, neither inside nor in its file name,
 * cannot be answered with an ARECF: 400.
 */
export async function receiveEcf(engine: Engine, tenantId: string, upload: InboundUpload): Promise<Reception> {
  const tenant = await requireTenant(engine.db, tenantId);
  const xmlSha256 = createHash('sha256').update(upload.xml).digest('hex');
  const previous = await findByBytes(engine, tenantId, xmlSha256);
  if (previous) return previous;

  const now = engine.clock.now();
  const text = asText(upload.xml);
  const parsed = parseXml(text);
  const byName = upload.fileName ? FILE_NAME.exec(upload.fileName) : null;
  const inside = parsed.ok ? { rnc: field(parsed.root, 'RNCEmisor'), encf: field(parsed.root, 'eNCF')?.toUpperCase() ?? null } : null;
  const issuerRnc = inside?.rnc && RNC.test(inside.rnc) ? inside.rnc : (byName?.[1] ?? null);
  const encf = inside?.encf && ENCF.test(inside.encf) ? inside.encf : (byName?.[2]?.toUpperCase() ?? null);
  if (!issuerRnc || !encf) {
    throw unreadable(
      parsed.ok
        ? 'The document names no RNCEmisor and eNCF, and the file name is not {RNCEmisor}{eNCF}.xml.'
        : `The XML is not well-formed (${parsed.reason}) and the file name is not {RNCEmisor}{eNCF}.xml.`,
    );
  }

  // The checks that need no store.
  let code: NotReceivedCode | null = null;
  let reason: string | null = null;
  const type = Number(encf.slice(1, 3));
  const kind = `ecf${encf.slice(1, 3)}` as DocumentKind;
  if (!parsed.ok) {
    [code, reason] = [NOT_RECEIVED.specification, parsed.reason];
  } else if (parsed.root.localName !== 'ECF') {
    [code, reason] = [NOT_RECEIVED.specification, `the root element is ${parsed.root.localName}, not ECF`];
  } else if (!(DOCUMENT_KINDS as readonly string[]).includes(kind) || kind === ('ecfrfce' as DocumentKind)) {
    [code, reason] = [NOT_RECEIVED.specification, `e-CF type ${encf.slice(1, 3)} does not exist`];
  } else if (!EXCHANGED_TYPES.has(type)) {
    [code, reason] = [NOT_RECEIVED.specification, `type ${type} is never sent to another taxpayer; only ${[...EXCHANGED_TYPES].join(', ')} are`];
  } else if (declaredType(parsed.root) !== type) {
    [code, reason] = [NOT_RECEIVED.specification, `TipoeCF ${field(parsed.root, 'TipoeCF') ?? '(none)'} is not the type of ${encf}`];
  } else {
    const schema = validateAgainstSchema(kind, text);
    if (!schema.valid) {
      [code, reason] = [NOT_RECEIVED.specification, `the document does not follow the type ${type} schema: ${schema.errors.slice(0, 3).join('; ')}`];
    } else {
      const signature = verifySignature(text, parsed, now);
      if (!signature.ok) [code, reason] = [NOT_RECEIVED.signature, signature.reason];
    }
  }
  const facts = parsed.ok
    ? {
        issuerName: field(parsed.root, 'RazonSocialEmisor'),
        buyerRnc: field(parsed.root, 'RNCComprador'),
        issueDate: isoFromXmlDate(field(parsed.root, 'FechaEmision')),
        montoTotal: field(parsed.root, 'MontoTotal'),
        securityCode: (() => {
          const sv = parsed.root.getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'SignatureValue')[0]?.textContent;
          return sv ? sv.replace(/\s+/g, '').slice(0, 6) : null;
        })(),
      }
    : { issuerName: null, buyerRnc: null, issueDate: null, montoTotal: null, securityCode: null };
  if (code === null && facts.buyerRnc !== tenant.rnc) {
    [code, reason] = [NOT_RECEIVED.buyerMismatch, facts.buyerRnc ? `RNCComprador ${facts.buyerRnc} is not this receiver's RNC ${tenant.rnc}` : `the e-CF names no RNCComprador; this receiver is ${tenant.rnc}`];
  }

  // The receiver cannot answer without a certificate to sign the ARECF with.
  let credentials;
  try {
    credentials = await signingCredentials(engine, tenantId);
  } catch (e) {
    if (e instanceof EngineError && e.code === 'Certificate.NoneActive') {
      throw new EngineError('unavailable', 'Reception.NoCertificate', 'The receiver has no certificate to sign the ARECF with.');
    }
    throw e;
  }
  const key = signingKey(credentials.privateKey, credentials.certificate);

  /** The verdict, with the duplicate check against what `db` sees. */
  const verdictIn = async (db: Db): Promise<[NotReceivedCode | null, string | null]> => {
    if (code !== null) return [code, reason];
    const already = await db
      .selectFrom('received_ecf')
      .select('received_at')
      .where('tenant_id', '=', tenantId)
      .where('issuer_rnc', '=', issuerRnc)
      .where('encf', '=', encf)
      .where('status', '=', 'received')
      .executeTakeFirst();
    return already ? [NOT_RECEIVED.duplicate, `${encf} of ${issuerRnc} was received already`] : [code, reason];
  };
  const answer = async (notReceived: NotReceivedCode | null) => {
    const arecf = signArecf({ issuerRnc, buyerRnc: tenant.rnc, encf, notReceived, at: now }, key);
    return { notReceived, arecf, prepared: await engine.documents.prepare(Buffer.from(arecf.xml, 'utf8')) };
  };
  // Signed and compressed before the transaction for the verdict seen now; signed again inside only
  // if another reception of this e-NCF committed in between.
  const [arrived, early] = await Promise.all([engine.documents.prepare(upload.xml), verdictIn(engine.db).then(([c]) => answer(c))]);

  const store = () =>
    inTransaction(engine.db, async (tx) => {
      const [finalCode, finalReason] = await verdictIn(tx);
      const { arecf, prepared } = early.notReceived === finalCode ? early : await answer(finalCode);
      const storedArecf = await engine.documents.store(tx, prepared);
      const storedXml = await engine.documents.store(tx, arrived);
      const row = {
        id: newId(),
        tenant_id: tenantId,
        environment: tenant.default_environment as Environment,
        status: finalCode === null ? 'received' : 'not_received',
        reason_code: finalCode,
        reason: finalCode === null ? null : `${REASONS[finalCode]}: ${finalReason}`.slice(0, 2000),
        issuer_rnc: issuerRnc,
        issuer_name: facts.issuerName,
        buyer_rnc: facts.buyerRnc,
        encf,
        type: Number.isInteger(type) && type > 0 ? type : null,
        issue_date: facts.issueDate,
        monto_total: facts.montoTotal,
        security_code: finalCode === NOT_RECEIVED.signature || finalCode === NOT_RECEIVED.specification ? null : facts.securityCode,
        file_name: upload.fileName ?? null,
        xml: storedXml.blob,
        xml_sha256: xmlSha256,
        arecf_xml: storedArecf.blob,
        arecf_sha256: storedArecf.sha256,
        received_at: now.toISOString(),
      };
      await tx.insertInto('received_ecf').values(row).execute();
      const key = await tenantKey(tx, tenantId);
      appendJournal(tx, now, { tenantKey: key, kind: 'received.stored', ref: row.id, digest: Buffer.from(xmlSha256, 'hex'), data: row.status });
      appendJournal(tx, now, { tenantKey: key, kind: 'received.answered', ref: row.id, digest: Buffer.from(arecf.sha256, 'hex'), data: 'ARECF' });
      const received = summaryView(row, null);
      await emit(tx, now, tenantId, 'inbound_ecf.received', received);
      return { arecf: arecf.xml, received, replay: false };
    });
  try {
    return await store();
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    // The same bytes arriving twice at once: the other request stored them first.
    const again = await findByBytes(engine, tenantId, xmlSha256);
    if (again) return again;
    // Other bytes of the same e-NCF committed first (several writers, PostgreSQL): told again, this one is the duplicate.
    return store();
  }
}

async function findByBytes(engine: Engine, tenantId: string, xmlSha256: string): Promise<Reception | null> {
  const row = await engine.db
    .selectFrom('received_ecf as r')
    .leftJoin('received_ecf_approvals as a', 'a.received_ecf_id', 'r.id')
    .select([...RECEIVED_COLUMNS.map((c) => `r.${c}` as const), 'a.decision'])
    .where('r.tenant_id', '=', tenantId)
    .where('r.xml_sha256', '=', xmlSha256)
    .executeTakeFirst();
  return row ? { arecf: (await readArecf(engine, row)).toString('utf8'), received: summaryView(row, row.decision), replay: true } : null;
}

export interface InboundApprovalResult {
  readonly approval: InboundApprovalView;
  readonly replay: boolean;
}

/**
 * The receiver's body with its HTTP 200 to an ACECF. The authority's documents
 * ask only for 200 or 400 (NOTES §10.1); the portal's screen speaks of an "OK"
 * reply (CERTIFICATION.md §10, Paso 11), and [BF] passed Paso 11 answering this
 * JSON, so it is the one answer known to pass, where an empty body is only
 * probably enough.
 */
export const APPROVAL_RECEIVED_ANSWER = { codigo: 'OK', estado: 'Aprobacion Comercial Aceptada', mensaje: [] as string[] } as const;

/**
 * Records an external buyer's ACECF over one of the tenant's e-CF (NOTES
 * §10.3) and emits `commercial_approval.received`. Refused (400, every
 * reason at once) unless it follows the ACECF schema, its signature verifies,
 * it names this tenant as RNCEmisor and one of its e-CF whose type takes a
 * commercial approval, and its buyer, issue date and total match that e-CF.
 * A MontoTotal without two decimals is accepted (the authority's own
 * certification ACECF sent `35400`). The same bytes again answer 200 and
 * record nothing; a second, different decision over the same e-CF is refused.
 */
export async function receiveInboundApproval(engine: Engine, tenantId: string, upload: InboundUpload): Promise<InboundApprovalResult> {
  const tenant = await requireTenant(engine.db, tenantId);
  const xmlSha256 = createHash('sha256').update(upload.xml).digest('hex');
  const same = await engine.db.selectFrom('inbound_approvals').selectAll().where('tenant_id', '=', tenantId).where('xml_sha256', '=', xmlSha256).executeTakeFirst();
  if (same) return { approval: inboundApprovalView(same), replay: true };

  const now = engine.clock.now();
  const text = asText(upload.xml);
  const errors: FieldError[] = [];
  // The caller reads the reasons in the answer; the operator reads them in the log, with the e-NCF they concern.
  const refuse = (encf: string | null, buyerRnc: string | null): never => {
    const reason = errors.map((e) => e.message).join(' ');
    engine.log.warn({ tenantId, encf, buyerRnc, approvalRefused: errors.map((e) => e.code), reason }, `commercial approval of ${encf ?? '(no eNCF)'} from ${buyerRnc ?? '(no RNCComprador)'} refused: ${reason}`);
    throw new ValidationError(errors, reason);
  };
  const fail = (code: string, message: string, encf: string | null = null, buyerRnc: string | null = null): never => {
    errors.push({ path: 'xml', code, message });
    return refuse(encf, buyerRnc);
  };
  const parsed = parseXml(text);
  if (!parsed.ok) return fail('Approval.NotWellFormed', parsed.reason);
  if (parsed.root.localName !== 'ACECF') return fail('Approval.NotAcecf', `The root element is ${parsed.root.localName}, not ACECF.`);
  const montoText = textOf(parsed.root, 'MontoTotal');
  // Validated with MontoTotal written with two decimals; the signature is checked over the bytes as sent.
  const forSchema =
    montoText && /^\d+(?:\.\d+)?$/.test(montoText) ? text.replace(/<MontoTotal>[^<]*<\/MontoTotal>/, `<MontoTotal>${new Dec(montoText).toFixed(2)}</MontoTotal>`) : text;
  const schema = validateAgainstSchema('acecf', forSchema);
  if (!schema.valid) errors.push({ path: 'xml', code: 'Approval.Schema', message: `The ACECF does not follow its schema: ${schema.errors.slice(0, 5).join('; ')}` });
  const signature = verifySignature(text, parsed, now);
  if (!signature.ok) errors.push({ path: 'xml', code: 'Approval.Signature', message: `The signature is not valid: ${signature.reason}.` });

  const issuerRnc = textOf(parsed.root, 'RNCEmisor');
  const encf = textOf(parsed.root, 'eNCF')?.toUpperCase() ?? null;
  const buyerRnc = textOf(parsed.root, 'RNCComprador');
  const estado = textOf(parsed.root, 'Estado');
  const reason = textOf(parsed.root, 'DetalleMotivoRechazo');
  const approvedAt = textOf(parsed.root, 'FechaHoraAprobacionComercial') ?? '';
  if (issuerRnc !== tenant.rnc) errors.push({ path: 'xml', code: 'Approval.WrongIssuer', message: `RNCEmisor ${issuerRnc ?? '(none)'} is not this taxpayer (${tenant.rnc}).` });
  const ecf = encf
    ? await engine.db
        .selectFrom('ecf')
        .select(['id', 'store_key', 'type', 'buyer_rnc', 'monto_total', 'issue_date'])
        .where('tenant_key', '=', await tenantKey(engine.db, tenantId))
        .where('encf', '=', encf)
        .orderBy('issued_at', 'desc')
        .executeTakeFirst()
    : undefined;
  if (!ecf) {
    errors.push({ path: 'xml', code: 'Approval.EcfNotFound', message: `This taxpayer issued no e-CF ${encf ?? '(no eNCF)'}.` });
  } else {
    if (isApprovalAutomatic(ecf.type)) errors.push({ path: 'xml', code: 'Approval.NotApplicable', message: `Commercial approval does not apply to type ${ecf.type}.` });
    if (buyerRnc !== ecf.buyer_rnc) errors.push({ path: 'xml', code: 'Approval.BuyerMismatch', message: `RNCComprador ${buyerRnc ?? '(none)'} is not the buyer of ${encf}.` });
    if (!montoText || !/^\d+(?:\.\d+)?$/.test(montoText) || !new Dec(montoText).eq(new Dec(ecf.monto_total))) {
      errors.push({ path: 'xml', code: 'Approval.TotalMismatch', message: `MontoTotal ${montoText ?? '(none)'} is not the total of ${encf} (${ecf.monto_total}).` });
    }
    const fecha = isoFromXmlDate(textOf(parsed.root, 'FechaEmision'));
    if (fecha !== ecf.issue_date) errors.push({ path: 'xml', code: 'Approval.DateMismatch', message: `FechaEmision is not the issue date of ${encf} (${xmlDate(ecf.issue_date)}).` });
  }
  if (estado !== '1' && estado !== '2') errors.push({ path: 'xml', code: 'Approval.Estado', message: `Estado must be 1 (accepted) or 2 (rejected), not ${estado ?? '(none)'}.` });
  if (errors.length) refuse(encf, buyerRnc);

  const prepared = await engine.documents.prepare(upload.xml);
  const row = {
    id: newId(),
    tenant_id: tenantId,
    ecf_id: ecf!.id,
    encf: encf!,
    buyer_rnc: buyerRnc!,
    decision: estado === '1' ? 'accepted' : 'rejected',
    rejection_reason: estado === '2' ? reason : null,
    approved_at_text: approvedAt,
    xml: upload.xml,
    xml_sha256: xmlSha256,
    received_at: now.toISOString(),
  };
  return inTransaction(engine.db, async (tx) => {
    const existing = await tx.selectFrom('inbound_approvals').select('id').where('tenant_id', '=', tenantId).where('ecf_id', '=', row.ecf_id).executeTakeFirst();
    if (existing) fail('Approval.AlreadyRecorded', `A commercial decision over ${row.encf} is already recorded.`, row.encf, row.buyer_rnc);
    await tx.insertInto('inbound_approvals').values({ ...row, xml: (await engine.documents.store(tx, prepared)).blob }).execute();
    appendJournal(tx, now, { tenantKey: await tenantKey(tx, tenantId), kind: 'approval.received', ecfKey: ecf!.store_key, digest: Buffer.from(xmlSha256, 'hex'), data: row.decision });
    afterCommit(tx, () => logInboundDecision(engine, tenantId, row));
    const approval = inboundApprovalView(row);
    await emit(tx, now, tenantId, 'commercial_approval.received', approval);
    return { approval, replay: false };
  }).catch((e: unknown) => {
    // Two decisions at once (several writers): the unique index keeps the first.
    if (isUniqueViolation(e)) fail('Approval.AlreadyRecorded', `A commercial decision over ${row.encf} is already recorded.`, row.encf, row.buyer_rnc);
    throw e;
  });
}

/** The buyer's decision over one of this taxpayer's e-CF, once recorded: a rejection at warn, with the buyer's reason. */
function logInboundDecision(engine: Engine, tenantId: string, row: { encf: string; buyer_rnc: string; decision: string; rejection_reason: string | null }): void {
  const fields = { tenantId, encf: row.encf, buyerRnc: row.buyer_rnc, decision: row.decision, ...(row.rejection_reason !== null && { reason: row.rejection_reason }) };
  if (row.decision === 'rejected') engine.log.warn(fields, `buyer ${row.buyer_rnc} rejected ${row.encf} commercially: ${row.rejection_reason ?? '(no DetalleMotivoRechazo)'}`);
  else engine.log.info(fields, `buyer ${row.buyer_rnc} approved ${row.encf} commercially`);
}
