import type { TSchema } from '@sinclair/typebox';
import { ECF_TYPES, IssueEcfCommand } from '../../engine/documents/index.js';
import { ENVIRONMENTS } from '../../engine/schema-types.js';
import { MAX_REASON_LENGTH, MAX_SEQUENTIAL } from '../../engine/sequences/index.js';
import type { RuleSentence } from './rule-codes.js';

/**
 * Sentences for one field and one rule code (`field:code`, the field being
 * the engine's path without indexes or its query/body prefix), where the
 * code's own sentence would not say what the field needs: a Union of the
 * decimal shape only says "not an accepted value". Only the fields the
 * console's forms show (the issue form, the e-CF and received lists'
 * filters, the sequence and certificate forms).
 */

const n = (value: number): string => new Intl.NumberFormat('es-DO').format(value);
const nEn = (value: number): string => new Intl.NumberFormat('en').format(value);
const or = (items: readonly (string | number)[], word: string): string => `${items.slice(0, -1).join(', ')} ${word} ${String(items.at(-1))}`;

/** A text field's longest length, read from the engine's schema so the sentence follows it. */
function maxLengthAt(schema: TSchema, path: readonly string[]): number {
  let s: TSchema | undefined = schema;
  const unwrap = (x: TSchema | undefined) => ((x?.anyOf as TSchema[] | undefined)?.find((v) => v.type !== 'null') ?? x) as TSchema | undefined;
  for (const key of path) {
    s = unwrap(s);
    if (s?.type === 'array') s = unwrap(s.items as TSchema);
    s = (s?.properties as Record<string, TSchema> | undefined)?.[key];
  }
  const max = (unwrap(s) as { maxLength?: unknown } | undefined)?.maxLength;
  if (typeof max !== 'number') throw new Error(`no maxLength at ${path.join('.')}`);
  return max;
}

const BUYER_NAME_MAX = maxLengthAt(IssueEcfCommand, ['buyer', 'name']);
const LINE_NAME_MAX = maxLengthAt(IssueEcfCommand, ['lines', 'name']);

/** The engine's text rule (XML_TEXT): no control characters besides tab and line breaks. */
const text = (max?: number): RuleSentence => ({
  es: `Debe ser un texto${max ? ` de hasta ${n(max)} caracteres` : ''}, sin caracteres de control (salvo tabulador y saltos de línea).`,
  en: `Must be a text${max ? ` of at most ${nEn(max)} characters` : ''}, without control characters (tab and line breaks aside).`,
});
/** DECIMAL_PATTERN: digits, a point for decimals, no thousands separator. */
const decimal: RuleSentence = { es: 'Debe ser un número con punto decimal y sin separador de miles, p. ej. 1234.50.', en: 'Must be a number with a decimal point and no thousands separator, e.g. 1234.50.' };
/** INTEGER_PATTERN. */
const integer: RuleSentence = { es: 'Debe ser un número entero, p. ej. 2.', en: 'Must be a whole number, e.g. 2.' };
const calendarDate: RuleSentence = { es: 'Debe ser una fecha válida (año-mes-día).', en: 'Must be a valid date (year-month-day).' };
const rnc: RuleSentence = { es: 'Debe ser un RNC de 9 dígitos o una cédula de 11 dígitos, solo dígitos.', en: 'Must be an RNC of 9 digits or a cédula of 11 digits, digits only.' };
const ecfType: RuleSentence = { es: `Debe ser un tipo de e-CF: ${or(ECF_TYPES, 'o')}.`, en: `Must be an e-CF type: ${or(ECF_TYPES, 'or')}.` };
const environment: RuleSentence = { es: `Debe ser un ambiente: ${or(ENVIRONMENTS, 'o')}.`, en: `Must be an environment: ${or(ENVIRONMENTS, 'or')}.` };
const sequential: RuleSentence = { es: `Debe ser un número entero de 1 a ${n(MAX_SEQUENTIAL)}.`, en: `Must be a whole number from 1 to ${nEn(MAX_SEQUENTIAL)}.` };
const fromList: RuleSentence = { es: 'Elija un valor de la lista.', en: 'Choose a value from the list.' };

/** One sentence for several `field:code` keys. */
const each = (keys: readonly string[], sentence: RuleSentence): Record<string, RuleSentence> => Object.fromEntries(keys.map((k) => [k, sentence]));
const textCodes = (field: string, sentence: RuleSentence) => each(['StringPattern', 'StringMinLength', 'StringMaxLength', 'String'].map((c) => `${field}:${c}`), sentence);

/** The issue form (src/console/pages/issue-form.ts; issue.ts adds payment.dueDate, reference.* and an exempt choice). */
const ISSUE: Record<string, RuleSentence> = {
  'type:Union': ecfType,
  'incomeType:StringPattern': { es: 'El tipo de ingreso debe ser un código de 01 a 06.', en: 'The income type must be a code from 01 to 06.' },
  'incomeType:Ecf.FieldRequired': { es: 'Este tipo de comprobante requiere el tipo de ingreso.', en: 'This e-CF type needs the income type.' },
  'incomeType:Ecf.FieldNotAllowed': { es: 'Este tipo de comprobante no lleva tipo de ingreso.', en: 'This e-CF type takes no income type.' },
  'buyer:Ecf.FieldRequired': { es: 'Este tipo de comprobante requiere los datos del comprador.', en: "This e-CF type needs the buyer's data." },
  'buyer:Ecf.FieldNotAllowed': { es: 'Este tipo de comprobante no lleva datos del comprador.', en: "This e-CF type takes no buyer's data." },
  'buyer.rnc:Ecf.InvalidFormat': rnc,
  ...textCodes('buyer.rnc', rnc),
  'buyer.rnc:Ecf.FieldRequired': { es: 'El RNC o la cédula del comprador es obligatorio para este tipo de comprobante o este monto (consumo desde DOP 250,000.00).', en: "The buyer's RNC or cédula is required for this e-CF type or amount (consumo from DOP 250,000.00)." },
  'buyer.rnc:Ecf.FieldNotAllowed': { es: 'Este tipo de comprobante no lleva RNC del comprador.', en: "This e-CF type takes no buyer's RNC." },
  ...textCodes('buyer.name', text(BUYER_NAME_MAX)),
  'buyer.name:Ecf.InvalidFormat': text(BUYER_NAME_MAX),
  'buyer.name:Ecf.FieldRequired': { es: 'El nombre del comprador es obligatorio para este tipo de comprobante o este monto (consumo desde DOP 250,000.00).', en: "The buyer's name is required for this e-CF type or amount (consumo from DOP 250,000.00)." },
  'buyer.name:Ecf.FieldNotAllowed': { es: 'Este tipo de comprobante no lleva nombre del comprador.', en: "This e-CF type takes no buyer's name." },
  'payment.condition:StringPattern': { es: 'La condición de pago debe ser 1 (contado), 2 (crédito) o 3 (gratuito).', en: 'The payment condition must be 1 (cash), 2 (credit) or 3 (free).' },
  'payment.condition:Ecf.FieldRequired': { es: 'Este tipo de comprobante requiere la condición de pago.', en: 'This e-CF type needs the payment condition.' },
  'payment.dueDate:StringFormat': calendarDate,
  'payment.dueDate:Ecf.FieldRequired': { es: 'La fecha de vencimiento es obligatoria en este tipo de comprobante cuando la condición de pago es crédito.', en: 'The due date is required for this e-CF type when the payment condition is credit.' },
  'payment.dueDate:Ecf.FieldNotAllowed': { es: 'Este tipo de comprobante no lleva fecha de vencimiento.', en: 'This e-CF type takes no due date.' },
  'reference:Ecf.FieldRequired': { es: 'Este tipo de comprobante requiere la referencia al comprobante que modifica: NCF modificado, su fecha y el código de modificación.', en: 'This e-CF type needs the reference to the e-CF it modifies: modified NCF, its date and the modification code.' },
  'reference.modifiedNcf:Ecf.InvalidFormat': { es: 'El NCF modificado debe tener 11 caracteres (NCF en papel), 13 (e-NCF) o 19 (serie antigua).', en: 'The modified NCF must have 11 (paper NCF), 13 (e-NCF) or 19 (old series) characters.' },
  ...textCodes('reference.modifiedNcf', text()),
  'reference.modifiedNcfDate:StringFormat': calendarDate,
  'reference.modifiedNcfDate:Ecf.DateAfterIssue': { es: 'La fecha del comprobante modificado no puede ser posterior a la fecha de emisión.', en: "The modified e-CF's date must not be after the issue date." },
  'reference.modificationCode:StringPattern': { es: 'El código de modificación debe ser de 1 a 5.', en: 'The modification code must be from 1 to 5.' },
  'reference.modificationCode:Ecf.InvalidForType': { es: 'El código 5 (referencia a un e-CF de consumo) solo se admite en el tipo 31.', en: 'Code 5 (references a consumo e-CF) is allowed only for type 31.' },
  'lines:ArrayMinItems': { es: 'Agregue al menos una línea.', en: 'Add at least one line.' },
  'lines:Ecf.TooManyItems': { es: 'Este tipo de comprobante admite menos líneas.', en: 'This e-CF type takes fewer lines.' },
  'lines:Ecf.OutOfRange': { es: 'Un total del comprobante tendría más dígitos enteros de los que admite un monto.', en: "A total of the e-CF would have more integer digits than an amount takes." },
  ...textCodes('lines.name', text(LINE_NAME_MAX)),
  'lines.quantity:Union': decimal,
  'lines.quantity:Ecf.OutOfRange': { es: 'La cantidad debe ser mayor que 0, sin que ella ni el monto de la línea pasen de los dígitos enteros que admite un monto.', en: "The quantity must be greater than 0, and neither it nor the line's amount may pass the integer digits an amount takes." },
  'lines.quantity:Ecf.TooManyDecimals': { es: 'La cantidad tiene más decimales de los que se admiten.', en: 'The quantity has more decimals than accepted.' },
  'lines.unitPrice:Union': decimal,
  'lines.unitPrice:Ecf.OutOfRange': { es: 'El precio unitario no puede ser negativo ni pasar de los dígitos enteros que admite un monto.', en: 'The unit price must not be negative nor pass the integer digits an amount takes.' },
  'lines.unitPrice:Ecf.TooManyDecimals': { es: 'El precio unitario tiene más decimales de los que se admiten.', en: 'The unit price has more decimals than accepted.' },
  'lines.discount:Union': decimal,
  'lines.discount:Ecf.OutOfRange': { es: 'El descuento no puede ser negativo, ni mayor que el precio por la cantidad (más el recargo), ni pasar de los dígitos enteros que admite un monto.', en: 'The discount must not be negative, nor exceed price × quantity (plus surcharge), nor pass the integer digits an amount takes.' },
  'lines.discount:Ecf.TooManyDecimals': { es: 'El descuento tiene más decimales de los que se admiten.', en: 'The discount has more decimals than accepted.' },
  'lines.discount:Ecf.FieldNotAllowed': { es: 'Este tipo de comprobante no admite descuentos por línea.', en: 'This e-CF type takes no line discounts.' },
  'lines.itbisRate:Union': { es: 'La tasa de ITBIS debe ser un número entero: 18, 16 o 0.', en: 'The ITBIS rate must be a whole number: 18, 16 or 0.' },
  'lines.itbisRate:Ecf.InvalidValue': { es: 'La tasa de ITBIS debe ser 18, 16 o 0.', en: 'The ITBIS rate must be 18, 16 or 0.' },
  'lines.itbisRate:Ecf.InvalidForType': { es: 'Este tipo de comprobante no admite esa tasa de ITBIS.', en: 'This e-CF type does not take that ITBIS rate.' },
  'lines.itbisRate:Ecf.FieldNotAllowed': { es: 'La tasa de ITBIS solo aplica a líneas gravadas; esta línea es exenta o no facturable.', en: 'The ITBIS rate applies only to taxed lines; this line is exempt or not invoiceable.' },
  'lines.taxTreatment:Union': { es: 'El ITBIS de la línea debe ser gravado, exento o no facturable.', en: "The line's ITBIS must be taxed, exempt or not invoiceable." },
  'lines.taxTreatment:Ecf.InvalidForType': { es: 'Este tipo de comprobante no admite ese tratamiento del ITBIS en sus líneas.', en: 'This e-CF type does not take that ITBIS treatment on its lines.' },
  'lines.retention:Ecf.FieldRequired': { es: 'Este tipo de comprobante requiere la retención en cada línea.', en: 'This e-CF type needs the retention on every line.' },
};

/** The e-CF list's and the received list's filters (ecf/queries.ts ListQuery, reception/queries.ts ReceivedListQuery). */
const FILTERS: Record<string, RuleSentence> = {
  'From:StringFormat': calendarDate,
  'To:StringFormat': calendarDate,
  'MinAmount:Union': decimal,
  'MaxAmount:Union': decimal,
  'Search:StringMinLength': { es: 'Escriba al menos un carácter.', en: 'Type at least one character.' },
  'Page:Union': integer,
  'PageSize:Union': integer,
  'Type:Union': { es: 'El tipo debe ser un número entero, p. ej. 31.', en: 'The type must be a whole number, e.g. 31.' },
  'Status:Union': fromList,
  'Approval:Union': fromList,
  'Environment:Union': environment,
  'Sort:Union': fromList,
  'Order:Union': fromList,
  'IssuerRnc:StringPattern': rnc,
};

/** The sequence forms (sequences/schemas.ts AddRangeInput, AnnulBody) and the certificate upload. */
const ADMIN: Record<string, RuleSentence> = {
  'environment:Union': environment,
  ...each(['rangeFrom:Union', 'rangeTo:Union', 'lines.rangeFrom:Union', 'lines.rangeTo:Union'], sequential),
  'lines.type:Union': ecfType,
  'expiresOn:StringFormat': calendarDate,
  'reason:StringMinLength': { es: 'Escriba el motivo.', en: 'Give the reason.' },
  'reason:StringPattern': { es: 'Escriba el motivo (no solo espacios), sin caracteres de control.', en: 'Give the reason (not only spaces), without control characters.' },
  'reason:StringMaxLength': { es: `El motivo admite hasta ${n(MAX_REASON_LENGTH)} caracteres.`, en: `The reason may have at most ${nEn(MAX_REASON_LENGTH)} characters.` },
};

export const RULE_FIELDS: Readonly<Record<string, RuleSentence>> = { ...ISSUE, ...FILTERS, ...ADMIN };
