import { ECF_CODES } from '../codes.js';
import { CURRENCIES, SCHEMA } from '../matrix.js';
import type { EcfType } from '../payload.js';
import { INDICATOR_OF_RATE, type BillingIndicator } from '../totals.js';
import { AMOUNT, checkDecimal, type SectionNotices } from './notices.js';
import { obj, str, type Obj } from './readers.js';

/** Foreign currency: the Tabla II code, the exchange rate and the converted totals the type's groups allow. */

const FOREIGN_TOTAL_GROUPS: Record<string, readonly BillingIndicator[]> = {
  montoGravadoTotal: [1, 2, 3],
  montoGravadoI1: [1],
  montoGravadoI2: [2],
  montoGravadoI3: [3],
  montoExento: [4],
  totalItbis: [1, 2, 3],
  totalItbis1: [1],
  totalItbis2: [2],
  totalItbis3: [3],
  montoTotal: [0, 1, 2, 3, 4],
};

function typeIndicators(type: EcfType): Set<BillingIndicator> {
  const out = new Set<BillingIndicator>();
  for (const t of SCHEMA.lineTreatments[type]) {
    if (t === 'exempt') out.add(4);
    else if (t === 'non_invoiceable') out.add(0);
    else for (const r of SCHEMA.itbisRates[type]) out.add(INDICATOR_OF_RATE[r]);
  }
  return out;
}

export function checkForeignCurrency(n: SectionNotices, p: Obj, type: EcfType | null): void {
  const fc = obj(p.foreignCurrency);
  if (!fc) return;
  const currency = str(fc.currency);
  if (currency && !(CURRENCIES as readonly string[]).includes(currency)) {
    n.error('foreignCurrency.currency', ECF_CODES.InvalidValue, `foreignCurrency.currency must be a code of Tabla II: ${CURRENCIES.join(', ')}`);
  }
  checkDecimal(n, 'foreignCurrency.exchangeRate', fc.exchangeRate, { scale: 4, min: 'positive', integerDigits: 3 });
  const totals = obj(fc.totals);
  if (!totals) return;
  const groups = type !== null ? typeIndicators(type) : null;
  for (const [key, needs] of Object.entries(FOREIGN_TOTAL_GROUPS)) {
    if (totals[key] == null) continue;
    checkDecimal(n, `foreignCurrency.totals.${key}`, totals[key], AMOUNT);
    if (groups && !needs.some((g) => groups.has(g))) {
      n.error(`foreignCurrency.totals.${key}`, ECF_CODES.FieldNotAllowed, `foreignCurrency.totals.${key} is not allowed for type ${type}`);
    }
  }
}
