import { createHash } from 'node:crypto';
import { encfOf } from './encf.js';
import { signCanonical, signatureTimestamp, type SigningKey } from '../signing/xmldsig.js';
import type { XmlData } from '../xml/canonical.js';
import { signable } from '../xml/schema-gate.js';

/**
 * The ANECF, the annulment of unused e-NCF (NOTES §11): one Anulacion per
 * type, numbered 1, 2, … in type order, each with its ranges (lowest first)
 * as Secuencias and their count; the header counts them all and carries the
 * issuer's RNC and the time of the annulment.
 */

export interface AnnulledRange {
  readonly type: number;
  readonly series: string;
  readonly from: number;
  readonly to: number;
}

const countOf = (r: AnnulledRange): number => r.to - r.from + 1;

/** The ranges in document order: by type, then by first number. */
export function documentOrder(ranges: readonly AnnulledRange[]): AnnulledRange[] {
  return [...ranges].sort((a, b) => a.type - b.type || a.from - b.from);
}

export function anecfData(rnc: string, ranges: readonly AnnulledRange[], annulledAtText: string): XmlData {
  const byType = new Map<number, AnnulledRange[]>();
  for (const r of documentOrder(ranges)) {
    const list = byType.get(r.type) ?? [];
    list.push(r);
    byType.set(r.type, list);
  }
  const total = ranges.reduce((sum, r) => sum + countOf(r), 0);
  return {
    Encabezado: {
      Version: '1.0',
      RncEmisor: rnc,
      CantidadeNCFAnulados: String(total),
      FechaHoraAnulacioneNCF: annulledAtText,
    },
    DetalleAnulacion: {
      Anulacion: [...byType].map(([type, list], i) => ({
        NoLinea: String(i + 1),
        TipoeCF: String(type),
        TablaRangoSecuenciasAnuladaseNCF: {
          Secuencias: list.map((r) => ({ SecuenciaeNCFDesde: encfOf(r.series, type, r.from), SecuenciaeNCFHasta: encfOf(r.series, type, r.to) })),
        },
        CantidadeNCFAnulados: String(list.reduce((sum, r) => sum + countOf(r), 0)),
      })),
    },
  };
}

export interface SignedAnecf {
  /** These bytes are stored and sent, on every attempt, unchanged. */
  readonly xml: string;
  readonly xmlSha256: string;
}

/** Builds the ANECF, passes it through the schema gate and signs it. */
export function signAnecf(rnc: string, ranges: readonly AnnulledRange[], now: Date, key: SigningKey): SignedAnecf {
  const signed = signCanonical(signable('anecf', anecfData(rnc, ranges, signatureTimestamp(now))), key);
  return { xml: signed.xml, xmlSha256: createHash('sha256').update(signed.xml, 'utf8').digest('hex') };
}
