import type { EcfType } from '../documents/payload.js';

/**
 * Reads a signed e-CF, as stored, into what the printed representation shows
 * (NOTES §17.11: render from the signed XML, not from database values).
 * Every value is the XML's own text; nothing is recomputed. Absent elements
 * are null (or empty lists).
 */

export interface PrintedLine {
  readonly number: number;
  /** IndicadorFacturacion: 0 non-invoiceable, 1–3 ITBIS 18/16/0 %, 4 exempt. */
  readonly indicator: number;
  readonly name: string;
  readonly description: string | null;
  readonly service: boolean;
  readonly quantity: string;
  /** Unit code (Tabla IV). */
  readonly unit: string | null;
  readonly unitPrice: string;
  readonly discount: string | null;
  readonly surcharge: string | null;
  readonly amount: string;
  readonly alcoholDegrees: string | null;
  readonly referenceUnitPrice: string | null;
  /** Codes of the additional taxes the line carries (the XML holds no per-line amount). */
  readonly additionalTaxCodes: readonly string[];
  readonly retention: { readonly agent: string | null; readonly itbis: string | null; readonly isr: string | null } | null;
}

export interface PrintedAdditionalTax {
  readonly code: string;
  readonly rate: string | null;
  readonly especifico: string | null;
  readonly advalorem: string | null;
  readonly otros: string | null;
}

export interface PrintedAdjustment {
  readonly kind: 'D' | 'R';
  readonly description: string | null;
  /** `%` or `$`. */
  readonly valueType: string | null;
  readonly value: string | null;
  readonly amount: string;
  readonly indicator: string | null;
}

export interface PrintedSubtotal {
  readonly number: string | null;
  readonly description: string | null;
  readonly lines: string | null;
  readonly gravado: string | null;
  readonly itbis: string | null;
  readonly exento: string | null;
  readonly additionalTax: string | null;
  readonly amount: string | null;
}

/** A page of the XML's Paginacion: its lines and its subtotals (element name → text). */
export interface PrintedPage {
  readonly number: number;
  readonly lineFrom: number | null;
  readonly lineTo: number | null;
  readonly values: Readonly<Record<string, string>>;
}

export interface PrintedEcf {
  readonly type: EcfType;
  readonly encf: string;
  readonly sequenceExpiresOn: string | null;
  readonly deferred: boolean;
  /** IndicadorMontoGravado = 1: line amounts include ITBIS. */
  readonly pricesIncludeTax: boolean;
  readonly incomeType: string | null;
  readonly paymentType: string | null;
  readonly paymentDueDate: string | null;
  readonly paymentForms: readonly { readonly form: string; readonly amount: string }[];
  readonly totalPages: number | null;
  readonly issuer: {
    readonly rnc: string;
    readonly legalName: string;
    readonly tradeName: string | null;
    readonly branch: string | null;
    readonly address: string;
    readonly municipality: string | null;
    readonly province: string | null;
    readonly phones: readonly string[];
    readonly email: string | null;
    readonly website: string | null;
    readonly sellerCode: string | null;
    readonly internalNumber: string | null;
    readonly orderNumber: string | null;
    readonly additionalInfo: string | null;
    readonly issueDate: string;
  };
  readonly buyer: {
    readonly rnc: string | null;
    readonly foreignId: string | null;
    readonly name: string | null;
    readonly contact: string | null;
    readonly email: string | null;
    readonly address: string | null;
    readonly municipality: string | null;
    readonly province: string | null;
    readonly country: string | null;
    readonly additionalInfo: string | null;
  } | null;
  /** InformacionesAdicionales and Transporte, element name → text, in document order. */
  readonly shipping: readonly (readonly [string, string])[];
  readonly transport: readonly (readonly [string, string])[];
  /** Totales, element name → text (MontoGravadoTotal, TotalITBIS1, MontoTotal, ...). */
  readonly totals: Readonly<Record<string, string>>;
  readonly additionalTaxes: readonly PrintedAdditionalTax[];
  readonly foreign: { readonly currency: string; readonly rate: string | null; readonly totals: Readonly<Record<string, string>> } | null;
  readonly lines: readonly PrintedLine[];
  readonly subtotals: readonly PrintedSubtotal[];
  readonly adjustments: readonly PrintedAdjustment[];
  readonly pages: readonly PrintedPage[];
  readonly reference: {
    readonly modifiedNcf: string | null;
    readonly otherIssuerRnc: string | null;
    readonly modifiedNcfDate: string | null;
    readonly code: string | null;
    readonly reason: string | null;
  } | null;
  /** FechaHoraFirma, dd-MM-yyyy HH:mm:ss. */
  readonly signedAt: string;
  /** The first six characters of SignatureValue (NOTES §6). */
  readonly securityCode: string;
}

/** A small element tree: local name, own text and element children. */
interface Node {
  readonly name: string;
  text: string;
  readonly children: Node[];
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (s: string): string =>
  s.indexOf('&') < 0
    ? s
    : s.replace(/&(#x[0-9a-fA-F]+|#\d+|[A-Za-z]+);/g, (m, e: string) =>
        e.startsWith('#') ? String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)) : (Object.hasOwn(ENTITIES, e) ? ENTITIES[e]! : m),
      );
/** An element tag (start, end or empty), the XML declaration, or a comment. */
const MARKUP = /<(\/?)([A-Za-z_][\w.:-]*)(?:\s[^>]*?)?(\/?)>|<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g;

/**
 * Reads the stored e-CF into an element tree. The bytes are the appliance's
 * own, written in Canonical XML (no DTD, no CDATA, attributes only on the
 * signature's elements, which the representation does not need), so a
 * scanner over tags does the work of a DOM in a twenty-fifth of the time; it
 * still refuses anything not well nested.
 */
function parse(xml: string): Node {
  const root: Node = { name: '', text: '', children: [] };
  const stack: Node[] = [root];
  let last = 0;
  MARKUP.lastIndex = 0;
  for (let m = MARKUP.exec(xml); m; m = MARKUP.exec(xml)) {
    const top = stack[stack.length - 1]!;
    if (m.index > last) top.text += decode(xml.slice(last, m.index));
    last = MARKUP.lastIndex;
    const tag = m[2];
    if (!tag) continue;
    const name = tag.slice(tag.indexOf(':') + 1);
    if (m[1]) {
      if (stack.length === 1 || top.name !== name) throw new Error(`the signed e-CF is not well-formed: </${tag}> closes <${top.name || '(none)'}>`);
      stack.pop();
      continue;
    }
    const node: Node = { name, text: '', children: [] };
    top.children.push(node);
    if (!m[3]) stack.push(node);
  }
  if (stack.length !== 1 || root.children.length !== 1) throw new Error('the signed e-CF is not well-formed: unclosed elements or no single root');
  return root.children[0]!;
}

const EMPTY: Node = { name: '', text: '', children: [] };
const child = (n: Node | undefined, name: string): Node | undefined => n?.children.find((c) => c.name === name);
const childrenNamed = (n: Node | undefined, name: string): Node[] => (n ? n.children.filter((c) => c.name === name) : []);
/** The text at a slash path below `n`, trimmed; null when absent or empty. */
function text(n: Node | undefined, path: string): string | null {
  let at = n;
  for (const part of path.split('/')) at = child(at, part);
  const t = at?.text.trim();
  return t ? t : null;
}
const required = (n: Node | undefined, path: string): string => {
  const t = text(n, path);
  if (t === null) throw new Error(`the signed e-CF has no ${path}`);
  return t;
};
/** Leaf children as [name, text] pairs, descending into nested groups. */
function leaves(n: Node | undefined): [string, string][] {
  const out: [string, string][] = [];
  for (const c of n?.children ?? []) {
    if (c.children.length) out.push(...leaves(c));
    else if (c.text.trim()) out.push([c.name, c.text.trim()]);
  }
  return out;
}

export function readSignedEcf(xml: string | Buffer): PrintedEcf {
  const source = typeof xml === 'string' ? xml : xml.toString('utf8');
  const root = parse(source);
  const head = child(root, 'Encabezado') ?? EMPTY;
  const id = child(head, 'IdDoc');
  const emisor = child(head, 'Emisor');
  const comprador = child(head, 'Comprador');
  const totales = child(head, 'Totales');
  const otraMoneda = child(head, 'OtraMoneda');
  const reference = child(root, 'InformacionReferencia');

  const buyerFields = comprador ? leaves(comprador) : [];
  const signatureValue = text(child(root, 'Signature'), 'SignatureValue')?.replace(/\s+/g, '') ?? '';

  return {
    type: Number(required(id, 'TipoeCF')) as EcfType,
    encf: required(id, 'eNCF'),
    sequenceExpiresOn: text(id, 'FechaVencimientoSecuencia'),
    deferred: text(id, 'IndicadorEnvioDiferido') === '1',
    pricesIncludeTax: text(id, 'IndicadorMontoGravado') === '1',
    incomeType: text(id, 'TipoIngresos'),
    paymentType: text(id, 'TipoPago'),
    paymentDueDate: text(id, 'FechaLimitePago'),
    paymentForms: childrenNamed(child(id, 'TablaFormasPago'), 'FormaDePago').map((f) => ({
      form: text(f, 'FormaPago') ?? '',
      amount: text(f, 'MontoPago') ?? '0.00',
    })),
    totalPages: text(id, 'TotalPaginas') ? Number(text(id, 'TotalPaginas')) : null,
    issuer: {
      rnc: required(emisor, 'RNCEmisor'),
      legalName: required(emisor, 'RazonSocialEmisor'),
      tradeName: text(emisor, 'NombreComercial'),
      branch: text(emisor, 'Sucursal'),
      address: text(emisor, 'DireccionEmisor') ?? '',
      municipality: text(emisor, 'Municipio'),
      province: text(emisor, 'Provincia'),
      phones: childrenNamed(child(emisor, 'TablaTelefonoEmisor'), 'TelefonoEmisor').map((p) => p.text.trim()).filter(Boolean),
      email: text(emisor, 'CorreoEmisor'),
      website: text(emisor, 'WebSite'),
      sellerCode: text(emisor, 'CodigoVendedor'),
      internalNumber: text(emisor, 'NumeroFacturaInterna'),
      orderNumber: text(emisor, 'NumeroPedidoInterno'),
      additionalInfo: text(emisor, 'InformacionAdicionalEmisor'),
      issueDate: required(emisor, 'FechaEmision'),
    },
    buyer: buyerFields.length
      ? {
          rnc: text(comprador, 'RNCComprador'),
          foreignId: text(comprador, 'IdentificadorExtranjero'),
          name: text(comprador, 'RazonSocialComprador'),
          contact: text(comprador, 'ContactoComprador'),
          email: text(comprador, 'CorreoComprador'),
          address: text(comprador, 'DireccionComprador'),
          municipality: text(comprador, 'MunicipioComprador'),
          province: text(comprador, 'ProvinciaComprador'),
          country: text(comprador, 'PaisComprador'),
          additionalInfo: text(comprador, 'InformacionAdicionalComprador'),
        }
      : null,
    shipping: leaves(child(head, 'InformacionesAdicionales')),
    transport: leaves(child(head, 'Transporte')),
    totals: Object.fromEntries((totales?.children ?? []).filter((c) => !c.children.length && c.text.trim()).map((c) => [c.name, c.text.trim()])),
    additionalTaxes: childrenNamed(child(totales, 'ImpuestosAdicionales'), 'ImpuestoAdicional').map((t) => ({
      code: text(t, 'TipoImpuesto') ?? '',
      rate: text(t, 'TasaImpuestoAdicional'),
      especifico: text(t, 'MontoImpuestoSelectivoConsumoEspecifico'),
      advalorem: text(t, 'MontoImpuestoSelectivoConsumoAdvalorem'),
      otros: text(t, 'OtrosImpuestosAdicionales'),
    })),
    foreign: otraMoneda
      ? {
          currency: text(otraMoneda, 'TipoMoneda') ?? '',
          rate: text(otraMoneda, 'TipoCambio'),
          totals: Object.fromEntries(leaves(otraMoneda).filter(([k]) => k !== 'TipoMoneda' && k !== 'TipoCambio')),
        }
      : null,
    lines: childrenNamed(child(root, 'DetallesItems'), 'Item').map(line),
    subtotals: childrenNamed(child(root, 'Subtotales'), 'Subtotal').map((s) => ({
      number: text(s, 'NumeroSubTotal'),
      description: text(s, 'DescripcionSubtotal'),
      lines: text(s, 'Lineas'),
      gravado: text(s, 'SubTotalMontoGravadoTotal'),
      itbis: text(s, 'SubTotaITBIS'),
      exento: text(s, 'SubTotalExento'),
      additionalTax: text(s, 'SubTotalImpuestoAdicional'),
      amount: text(s, 'MontoSubTotal'),
    })),
    adjustments: childrenNamed(child(root, 'DescuentosORecargos'), 'DescuentoORecargo').map((a) => ({
      kind: text(a, 'TipoAjuste') === 'R' ? 'R' : 'D',
      description: text(a, 'DescripcionDescuentooRecargo'),
      valueType: text(a, 'TipoValor'),
      value: text(a, 'ValorDescuentooRecargo'),
      amount: text(a, 'MontoDescuentooRecargo') ?? '0.00',
      indicator: text(a, 'IndicadorFacturacionDescuentooRecargo'),
    })),
    pages: childrenNamed(child(root, 'Paginacion'), 'Pagina').map((p, i) => ({
      number: Number(text(p, 'PaginaNo') ?? i + 1),
      lineFrom: text(p, 'NoLineaDesde') ? Number(text(p, 'NoLineaDesde')) : null,
      lineTo: text(p, 'NoLineaHasta') ? Number(text(p, 'NoLineaHasta')) : null,
      values: Object.fromEntries(leaves(p).filter(([k]) => !['PaginaNo', 'NoLineaDesde', 'NoLineaHasta'].includes(k))),
    })),
    reference: reference
      ? {
          modifiedNcf: text(reference, 'NCFModificado'),
          otherIssuerRnc: text(reference, 'RNCOtroContribuyente'),
          modifiedNcfDate: text(reference, 'FechaNCFModificado'),
          code: text(reference, 'CodigoModificacion'),
          reason: text(reference, 'RazonModificacion'),
        }
      : null,
    signedAt: required(root, 'FechaHoraFirma'),
    securityCode: signatureValue.slice(0, 6),
  };
}

function line(item: Node): PrintedLine {
  const r = child(item, 'Retencion');
  return {
    number: Number(text(item, 'NumeroLinea') ?? 0),
    indicator: Number(text(item, 'IndicadorFacturacion') ?? 1),
    name: text(item, 'NombreItem') ?? '',
    description: text(item, 'DescripcionItem'),
    service: text(item, 'IndicadorBienoServicio') === '2',
    quantity: text(item, 'CantidadItem') ?? '1',
    unit: text(item, 'UnidadMedida'),
    unitPrice: text(item, 'PrecioUnitarioItem') ?? '0.00',
    discount: text(item, 'DescuentoMonto'),
    surcharge: text(item, 'RecargoMonto'),
    amount: text(item, 'MontoItem') ?? '0.00',
    alcoholDegrees: text(item, 'GradosAlcohol'),
    referenceUnitPrice: text(item, 'PrecioUnitarioReferencia'),
    additionalTaxCodes: childrenNamed(child(item, 'TablaImpuestoAdicional'), 'ImpuestoAdicional')
      .map((t) => text(t, 'TipoImpuesto'))
      .filter((c): c is string => c !== null),
    retention: r
      ? { agent: text(r, 'IndicadorAgenteRetencionoPercepcion'), itbis: text(r, 'MontoITBISRetenido'), isr: text(r, 'MontoISRRetenido') }
      : null,
  };
}
