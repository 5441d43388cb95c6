import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { validateAgainstSchema } from '../../engine/xml/xsd.js';
import type { TaxpayerIdentity } from '../taxpayer.js';
import { parseXml, textOf, verifySignature } from '../verify.js';
import type { CertificationMode, Variant } from './mode.js';
import { VARIANTS } from './mode.js';
import { playPaso11, playPaso9, type ApprovalTarget } from './players.js';
import { APPROVAL_TYPES, PASO11_DOCUMENTS, PASO9_DOCUMENTS } from './rules.js';

/**
 * The certification mode's routes, under `/_sandbox/certification/:rnc`:
 * the set (start, workbooks, progress, reset), the portal's upload box for
 * the full consumo XMLs, and the authority's calls of Pasos 9 and 11.
 */

export interface CertificationRouteDeps {
  readonly mode: CertificationMode;
  readonly now: () => Date;
  readonly identity: () => TaxpayerIdentity;
  /** A signed type-31 e-CF from the sandbox taxpayer to `buyerRnc`. */
  readonly makeEcf: (buyerRnc: string) => { xml: string; encf: string };
  /** e-CF the authority accepted from `rnc` in `environment`, newest first. */
  readonly accepted: (rnc: string, environment: string) => readonly { encf: string; issuedOn: string | null; totalAmount: string | null; buyerRnc: string | null }[];
}

const RNC = /^(?:\d{9}|\d{11})$/;
const ENCF = /^E\d{12}$/;
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

type Params = { rnc: string };

export async function certificationRoutes(app: FastifyInstance, deps: CertificationRouteDeps): Promise<void> {
  const { mode } = deps;
  const base = '/_sandbox/certification/:rnc';

  /** The RNC of the path, or an answer already sent. */
  const rncOf = (request: FastifyRequest, reply: FastifyReply, needSet = true): string | null => {
    const rnc = (request.params as Params).rnc;
    if (!RNC.test(rnc)) {
      void reply.code(400).send({ error: 'invalid RNC', errors: [`rnc: ${rnc} is not 9 or 11 digits`] });
      return null;
    }
    if (needSet && !mode.has(rnc)) {
      void reply.code(404).send({ error: 'no certification set', errors: [`no certification set for RNC ${rnc}: POST ${base.replace(':rnc', rnc)}/start first`] });
      return null;
    }
    return rnc;
  };

  app.post(`${base}/start`, async (request, reply) => {
    const rnc = rncOf(request, reply, false);
    if (!rnc) return reply;
    const body = (request.body ?? {}) as { variant?: unknown };
    const variant = body.variant ?? 'full';
    if (typeof variant !== 'string' || !(VARIANTS as readonly string[]).includes(variant)) {
      return reply.code(400).send({ error: 'invalid sandbox command', errors: [`variant: must be ${VARIANTS.join(' or ')}, not ${JSON.stringify(variant)}`] });
    }
    await mode.start(rnc, variant as Variant);
    return reply.code(201).send(mode.progress(rnc));
  });

  app.get(base, async (request, reply) => {
    const rnc = rncOf(request, reply);
    if (!rnc) return reply;
    return mode.progress(rnc);
  });

  for (const paso of [2, 3] as const) {
    app.get(`${base}/paso${paso}.xlsx`, async (request, reply) => {
      const rnc = rncOf(request, reply);
      if (!rnc) return reply;
      const book = mode.workbook(rnc, paso)!;
      return reply.type(XLSX).header('content-disposition', `attachment; filename="${book.fileName}"`).send(book.bytes);
    });
  }

  app.post(`${base}/reset`, async (request, reply) => {
    const rnc = rncOf(request, reply);
    if (!rnc) return reply;
    mode.reset(rnc);
    return mode.progress(rnc);
  });

  // The portal's box "Facturas de consumo < 250Mil": one XML file, any field name.
  app.post(`${base}/consumo`, async (request, reply) => {
    const rnc = rncOf(request, reply);
    if (!rnc) return reply;
    const refuse = (message: string, status = 200) => reply.code(status).send({ accepted: false, encf: null, messages: [message], progress: mode.progress(rnc) });
    if (!request.isMultipart()) return refuse('Envíe el archivo XML como multipart/form-data.', 400);
    let fileName = '';
    let xml: string;
    try {
      const part = await request.file();
      if (!part) return refuse('Seleccione un archivo XML.', 400);
      fileName = part.filename ?? '';
      xml = (await part.toBuffer()).toString('utf8');
      if (xml.charCodeAt(0) === 0xfeff) xml = xml.slice(1);
    } catch (e) {
      return refuse(`El archivo no se pudo leer: ${(e as Error).message}`, 400);
    }
    const parsed = parseXml(xml);
    if (!parsed.ok) return refuse(`El XML no cumple con el esquema (XSD): ${parsed.reason}`);
    const encf = textOf(parsed.root, 'eNCF')?.toUpperCase() ?? '';
    const issuer = textOf(parsed.root, 'RNCEmisor') ?? '';
    const answer = (accepted: boolean, messages: string[], paso: 2 | 4 | null) =>
      reply.send({ accepted, encf, fileName, paso, messages, progress: mode.progress(rnc) });
    if (!ENCF.test(encf) || encf.slice(1, 3) !== '32') return answer(false, ['Solo se aceptan facturas de consumo (tipo 32) menores de RD$250,000.00.'], null);
    if (issuer !== rnc) return answer(false, [`El RNCEmisor ${issuer || '(vacío)'} no corresponde al contribuyente ${rnc}.`], null);
    if (fileName && fileName.toUpperCase() !== `${rnc}${encf}.XML`) {
      return answer(false, [`La longitud del nombre del archivo no es válida: se espera ${rnc}${encf}.xml, no ${fileName}.`], null);
    }
    const schema = validateAgainstSchema('ecf32', xml);
    if (!schema.valid) return answer(false, [`El XML no cumple con el esquema (XSD): ${schema.errors.slice(0, 3).join('; ')}`], null);
    const signature = verifySignature(xml, parsed, deps.now());
    if (!signature.ok) return answer(false, [`La firma digital del XML no es válida: ${signature.reason}`], null);
    const judged = mode.uploadConsumo(rnc, encf, xml, signature.signatureValue.slice(0, 6));
    return answer(judged.accepted, judged.messages, judged.paso);
  });

  const urlOf = (body: { url?: unknown }): string | { error: string } => {
    if (typeof body.url !== 'string') return { error: 'url: required, the receiver registered in the portal, e.g. https://host/prefix' };
    try {
      const u = new URL(body.url);
      if (u.protocol !== 'https:' && u.protocol !== 'http:') return { error: `url: ${body.url} is not http(s)` };
    } catch {
      return { error: `url: ${body.url} is not a URL` };
    }
    return body.url;
  };
  const countOf = (value: unknown, fallback: number): number | { error: string } =>
    value === undefined ? fallback : Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 20 ? (value as number) : { error: 'count: an integer from 1 to 20' };

  // Pasos 9 and 11 test the receiver, not the data set: they run without a set too (the result is then only in the answer).
  app.post(`${base}/paso9`, async (request, reply) => {
    const rnc = rncOf(request, reply, false);
    if (!rnc) return reply;
    const body = (request.body ?? {}) as { url?: unknown; count?: unknown; faulty?: unknown };
    const url = urlOf(body);
    const count = countOf(body.count, PASO9_DOCUMENTS);
    if (typeof url !== 'string') return reply.code(400).send({ error: 'invalid sandbox command', errors: [url.error] });
    if (typeof count !== 'number') return reply.code(400).send({ error: 'invalid sandbox command', errors: [count.error] });
    const report = await playPaso9({
      url,
      applicantRnc: rnc,
      identity: deps.identity(),
      now: deps.now(),
      makeEcf: () => deps.makeEcf(rnc),
      count,
      faulty: body.faulty === true,
    });
    mode.recordPlayer(rnc, 9, report);
    return { report, progress: mode.progress(rnc) };
  });

  app.post(`${base}/paso11`, async (request, reply) => {
    const rnc = rncOf(request, reply, false);
    if (!rnc) return reply;
    const body = (request.body ?? {}) as { url?: unknown; count?: unknown; environment?: unknown; encfs?: unknown };
    const url = urlOf(body);
    const count = countOf(body.count, PASO11_DOCUMENTS);
    if (typeof url !== 'string') return reply.code(400).send({ error: 'invalid sandbox command', errors: [url.error] });
    if (typeof count !== 'number') return reply.code(400).send({ error: 'invalid sandbox command', errors: [count.error] });
    const environment = typeof body.environment === 'string' ? body.environment.toLowerCase() : 'certecf';
    const only = Array.isArray(body.encfs) ? new Set(body.encfs.map((e) => String(e).toUpperCase())) : null;
    const seen = new Set<string>();
    const candidates: (ApprovalTarget & { inSet: boolean })[] = [];
    for (const s of deps.accepted(rnc, environment)) {
      if (seen.has(s.encf) || (only && !only.has(s.encf))) continue;
      seen.add(s.encf);
      if (!APPROVAL_TYPES.has(s.encf.slice(1, 3)) || !s.buyerRnc || !s.issuedOn || !s.totalAmount) continue;
      candidates.push({ encf: s.encf, issueDate: s.issuedOn, montoTotal: s.totalAmount, buyerRnc: s.buyerRnc, inSet: mode.inSet(rnc, s.encf) });
    }
    // The simulation's documents first: those the appliance issued through its normal path, as the portal's own test would pick.
    const targets = [...candidates.filter((c) => !c.inSet), ...candidates.filter((c) => c.inSet)].slice(0, count);
    if (!targets.length) {
      return reply.code(409).send({
        error: 'nothing to approve',
        errors: [`no e-CF of RNC ${rnc} of a type that takes a commercial approval (${[...APPROVAL_TYPES].join(', ')}) with a buyer was accepted in ${environment}: send the Paso 4 documents first`],
      });
    }
    const report = await playPaso11({ url, applicantRnc: rnc, identity: deps.identity(), now: deps.now(), targets });
    mode.recordPlayer(rnc, 11, report);
    return { report, progress: mode.progress(rnc) };
  });
}
