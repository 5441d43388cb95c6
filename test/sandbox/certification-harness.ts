import { afterEach } from 'vitest';
import { buildCase } from '../../src/engine/certification/case-document.js';
import type { WorkbookKind } from '../../src/engine/certification/columns.js';
import { multipartBody } from '../../src/engine/taxauth/upload.js';
import { signSeed } from '../../src/engine/taxauth/token-cache.js';
import type { WorkbookRow } from '../../src/sandbox/certification/compare.js';
import type { CertificationSources } from '../../src/sandbox/certification/mode.js';
import { certificationSources } from '../../src/sandbox/certification/sources.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { makeTaxpayerIdentity } from '../../src/sandbox/taxpayer.js';

/**
 * The certification mode over real HTTP: a sandbox on 127.0.0.1 holding the
 * synthetic set of CERTIFICATION.md §8 (rows written here, so the judge's
 * tests do not depend on the generator's made-up data), and an applicant
 * that builds each case verbatim from its row, signs it and sends it the
 * way the authority's clients do.
 */

export const RNC_A = '999000001';
export const RNC_B = '999000002';

const running: RunningSandbox[] = [];
afterEach(async () => {
  while (running.length) await running.pop()!.close();
});

const common = (encf: string, type: string): Record<string, string> => ({
  CasoPrueba: `${RNC_A}${encf}`,
  Version: '1.0',
  TipoeCF: type,
  ENCF: encf,
  TipoPago: '1',
  RNCEmisor: RNC_A,
  RazonSocialEmisor: 'EMISOR SINTETICO DE PRUEBA',
  DireccionEmisor: 'CALLE FICTICIA 1',
  FechaEmision: '01-04-2020',
});

type Item = [string, string, string, string, string, string, string, string];
const items = (...list: Item[]): Record<string, string> => {
  const out: Record<string, string> = {};
  list.forEach(([a, b, c, d, e, f, g, h], k) => {
    const i = k + 1;
    Object.assign(out, {
      [`NumeroLinea[${i}]`]: a,
      [`IndicadorFacturacion[${i}]`]: b,
      [`NombreItem[${i}]`]: c,
      [`IndicadorBienoServicio[${i}]`]: d,
      [`CantidadItem[${i}]`]: e,
      ...(f !== '#e' && { [`UnidadMedida[${i}]`]: f }),
      [`PrecioUnitarioItem[${i}]`]: g,
      [`MontoItem[${i}]`]: h,
    });
  });
  return out;
};
const buyer = { RNCComprador: RNC_B, RazonSocialComprador: 'COMPRADOR SINTETICO' };

/**
 * The §8 rows (sheet order, deliberately not a valid send order), except
 * the type 43, whose amount is 385.00 so a test can send `385`.
 */
export function section8Rows(): WorkbookRow[] {
  const ecf = (row: number, cells: Record<string, string>): WorkbookRow => ({ sheet: 'ECF', row, cells });
  return [
    ecf(2, {
      ...common('E330000000001', '33'),
      FechaVencimientoSecuencia: '31-12-2028',
      TipoIngresos: '01',
      FechaEmision: '02-04-2020',
      ...buyer,
      MontoExento: '100.00',
      MontoTotal: '100.00',
      ...items(['1', '4', 'AJUSTE', '1', '1.00', '#e', '100.00', '100.00']),
      NCFModificado: 'E320000000001',
      FechaNCFModificado: '01-04-2020',
      CodigoModificacion: '3',
    }),
    ecf(3, {
      ...common('E320000000001', '32'),
      IndicadorMontoGravado: '0',
      TipoIngresos: '01',
      'FormaPago[1]': '1',
      'MontoPago[1]': '354000.00',
      ...buyer,
      MontoGravadoTotal: '300000.00',
      MontoGravadoI1: '300000.00',
      ITBIS1: '18',
      TotalITBIS: '54000.00',
      TotalITBIS1: '54000.00',
      MontoTotal: '354000.00',
      ...items(['1', '1', 'EQUIPO', '1', '1.00', '43', '300000.00', '300000.00']),
    }),
    ecf(4, {
      ...common('E340000000001', '34'),
      IndicadorNotaCredito: '0',
      TipoIngresos: '01',
      ...buyer,
      MontoTotal: '0.00',
      MontoNoFacturable: '1.00',
      ...items(['1', '0', 'CORRECCION', '2', '1.00', '#e', '1.00', '1.00']),
      NCFModificado: 'E310000000001',
      FechaNCFModificado: '01-04-2020',
      CodigoModificacion: '2',
      RazonModificacion: 'Error en datos',
    }),
    ecf(5, {
      ...common('E310000000001', '31'),
      FechaVencimientoSecuencia: '31-12-2028',
      IndicadorMontoGravado: '0',
      TipoIngresos: '01',
      'TelefonoEmisor[1]': '809-000-0001',
      'TelefonoEmisor[2]': '809-000-0002',
      ...buyer,
      MontoGravadoTotal: '1000.00',
      MontoGravadoI1: '1000.00',
      MontoExento: '250.00',
      ITBIS1: '18',
      TotalITBIS: '180.00',
      TotalITBIS1: '180.00',
      MontoTotal: '1430.00',
      ...items(['1', '1', 'SILLA', '1', '2.00', '43', '500.0000', '1000.00'], ['2', '4', 'LIBRO', '1', '1.00', '43', '250.00', '250.00']),
    }),
    ecf(6, {
      ...common('E320000000002', '32'),
      IndicadorMontoGravado: '0',
      TipoIngresos: '01',
      RazonSocialEmisor: 'EMISOR SINTETICO CONSUMO',
      ...buyer,
      MontoGravadoTotal: '2000.00',
      MontoGravadoI1: '2000.00',
      ITBIS1: '18',
      TotalITBIS: '360.00',
      TotalITBIS1: '360.00',
      MontoTotal: '2360.00',
      ...items(['1', '1', 'CARGADOR', '1', '2', '55', '1000.00', '2000.00']),
    }),
    ecf(7, {
      ...common('E410000000001', '41'),
      FechaVencimientoSecuencia: '31-12-2028',
      IndicadorMontoGravado: '0',
      'FormaPago[1]': '1',
      'MontoPago[1]': '9000.00',
      RNCComprador: RNC_B,
      RazonSocialComprador: 'PROVEEDOR SINTETICO',
      MontoGravadoTotal: '10000.00',
      MontoGravadoI1: '10000.00',
      ITBIS1: '18',
      TotalITBIS: '1800.00',
      TotalITBIS1: '1800.00',
      MontoTotal: '11800.00',
      ValorPagar: '11800.00',
      TotalITBISRetenido: '1800.00',
      TotalISRRetencion: '1000.00',
      ...items(['1', '1', 'SERVICIO', '2', '1.00', '43', '10000.00', '10000.00']),
      'IndicadorAgenteRetencionoPercepcion[1]': '1',
      'MontoITBISRetenido[1]': '1800.00',
      'MontoISRRetenido[1]': '1000.00',
    }),
    ecf(8, {
      ...common('E430000000001', '43'),
      FechaVencimientoSecuencia: '31-12-2028',
      MontoExento: '385.00',
      MontoTotal: '385.00',
      ...items(['1', '4', 'GASTOS DE OFICINA', '2', '1', '43', '385.0000', '385.00']),
      'TipoCodigo[1][1]': 'Interno',
      'CodigoItem[1][1]': '0001',
    }),
    ecf(9, {
      ...common('E470000000001', '47'),
      FechaVencimientoSecuencia: '31-12-2028',
      IdentificadorExtranjero: '999000003',
      RazonSocialComprador: 'PROVEEDOR EXTERIOR SINTETICO',
      MontoExento: '60000.00',
      MontoTotal: '60000.00',
      TotalISRRetencion: '16200.00',
      TipoMoneda: 'USD',
      TipoCambio: '60.0000',
      MontoExentoOtraMoneda: '1000.00',
      MontoTotalOtraMoneda: '1000.00',
      ...items(['1', '4', 'LICENCIA', '2', '1.00', '43', '60000.00', '60000.00']),
      'IndicadorAgenteRetencionoPercepcion[1]': '1',
      'MontoISRRetenido[1]': '16200.00',
      'PrecioOtraMoneda[1]': '1000.0000',
      'MontoItemOtraMoneda[1]': '1000.00',
    }),
    {
      sheet: 'RFCE',
      row: 2,
      cells: {
        CasoPrueba: `${RNC_A}E320000000002`,
        Version: '1.0',
        TipoeCF: '32',
        ENCF: 'E320000000002',
        TipoIngresos: '01',
        TipoPago: '1',
        RNCEmisor: RNC_A,
        RazonSocialEmisor: 'EMISOR SINTETICO CONSUMO',
        FechaEmision: '01-04-2020',
        ...buyer,
        MontoGravadoTotal: '2000.00',
        MontoGravadoI1: '2000.00',
        TotalITBIS: '360.00',
        TotalITBIS1: '360.00',
        MontoTotal: '2360.00',
      },
    },
    ...(
      [
        ['E310000000001', '01-04-2020', '1430', '1', ''],
        ['E330000000001', '02-04-2020', '100', '1', ''],
        ['E340000000001', '01-04-2020', '0', '1', ''],
        ['E310000000001', '01-04-2020', '1430', '2', 'Precio incorrecto'],
      ] as const
    ).map(
      ([encf, fecha, monto, estado, motivo], i): WorkbookRow => ({
        sheet: 'ACEECF_Generadas',
        row: i + 2,
        cells: {
          Version: '1.0',
          RNCEmisor: RNC_B,
          eNCF: encf,
          FechaEmision: fecha,
          MontoTotal: monto,
          RNCComprador: RNC_A,
          Estado: estado,
          ...(motivo && { DetalleMotivoRechazo: motivo }),
          FechaHoraAprobacionComercial: '23-06-2026 17:45:47',
        },
      }),
    ),
  ];
}

/** Sources that hand out the rows above (the workbooks' bytes are placeholders: only the real generator's are tested as files). */
export const section8Sources: CertificationSources = {
  generate: async () => ({ paso2: Buffer.from('paso2'), paso3: Buffer.from('paso3'), rows: section8Rows() }),
  flatten: certificationSources.flatten,
};

export interface Verdict {
  readonly codigo: number;
  readonly estado: string;
  readonly mensajes: { codigo: number; valor: string }[];
}

/** A sandbox with the certification mode, and an applicant (RNC_A unless told) that sends as the authority's clients do. */
export async function certificationHarness(options: { sources?: CertificationSources; rnc?: string } = {}) {
  const sandbox = await startSandbox({ certification: options.sources ?? section8Sources });
  running.push(sandbox);
  const rnc = options.rnc ?? RNC_A;
  const env = `${sandbox.url}/certecf`;
  const identity = makeTaxpayerIdentity(new Date());
  const rows = section8Rows();
  const row = (sheet: WorkbookRow['sheet'], encf: string, estado = '1') =>
    rows.find((r) => r.sheet === sheet && (r.cells.ENCF ?? r.cells.eNCF) === encf && (sheet !== 'ACEECF_Generadas' || r.cells.Estado === estado))!;

  let token: string | null = null;
  const authenticate = async () => {
    const seed = await (await fetch(`${env}/autenticacion/api/autenticacion/semilla`)).text();
    const form = multipartBody('xml', 'semilla.xml', 'text/xml', Buffer.from(signSeed(seed, identity.key), 'utf8'));
    const res = await fetch(`${env}/autenticacion/api/autenticacion/validarsemilla`, { method: 'POST', headers: { 'content-type': form.contentType }, body: form.body });
    token = ((await res.json()) as { token: string }).token;
    return token;
  };
  const upload = async (url: string, fileName: string, xml: string, field = 'xml') => {
    const form = multipartBody(field, fileName, 'text/xml', Buffer.from(xml, 'utf8'));
    return fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token ?? (await authenticate())}`, 'content-type': form.contentType }, body: form.body });
  };

  /** A case built verbatim from `cells` (the row's unless changed), signed by the applicant. */
  const build = (kind: WorkbookKind, cells: Record<string, string>, securityCode?: string, signedAt = new Date()) =>
    buildCase({ kind, cells, key: identity.key, signedAt, ...(securityCode && { securityCode }) });

  return {
    sandbox,
    rnc,
    rows,
    row,
    build,
    kindOf: (encf: string) => `ecf${encf.slice(1, 3)}` as WorkbookKind,
    async control(path: string, method: 'GET' | 'POST' = 'GET', body?: unknown) {
      const res = await fetch(`${sandbox.url}/_sandbox/certification/${rnc}${path}`, {
        method,
        ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return { status: res.status, headers: res.headers, body: (res.headers.get('content-type')?.includes('json') ? await res.json() : Buffer.from(await res.arrayBuffer())) as any };
    },
    /** recepcion, then consultaresultado: the verdict. */
    async sendEcf(xml: string, encf: string): Promise<Verdict> {
      const res = await upload(`${env}/recepcion/api/facturaselectronicas`, `${rnc}${encf}.xml`, xml);
      const { trackId } = (await res.json()) as { trackId: string };
      const q = await fetch(`${env}/consultaresultado/api/consultas/estado?trackId=${trackId}`, { headers: { authorization: `Bearer ${token}` } });
      return (await q.json()) as Verdict;
    },
    async sendRfce(xml: string, encf: string): Promise<Verdict> {
      return (await (await upload(`${env}/recepcionfc/api/recepcion/ecf`, `${rnc}${encf}.xml`, xml)).json()) as Verdict;
    },
    async sendApproval(xml: string, encf: string): Promise<{ codigo: string; estado: string; mensaje: string[] }> {
      return (await (await upload(`${env}/aprobacioncomercial/api/aprobacioncomercial`, `${RNC_B}${encf}.xml`, xml)).json()) as { codigo: string; estado: string; mensaje: string[] };
    },
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async uploadConsumo(xml: string, encf: string): Promise<any> {
      const form = multipartBody('file', `${rnc}${encf}.xml`, 'text/xml', Buffer.from(xml, 'utf8'));
      const res = await fetch(`${sandbox.url}/_sandbox/certification/${rnc}/consumo`, { method: 'POST', headers: { 'content-type': form.contentType }, body: form.body });
      return res.json();
    },
    async script(encf: string, outcomes: unknown[]) {
      const res = await fetch(`${sandbox.url}/_sandbox/script`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ encf, outcomes }) });
      if (res.status !== 200) throw new Error(`script refused: ${await res.text()}`);
    },
  };
}
