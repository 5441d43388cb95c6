import { MAX_CERTIFICATE_FILE_BYTES, MIN_RSA_BITS } from '../../engine/certificates/index.js';
import { MAX_REJECTION_REASON } from '../../engine/reception/receiving.js';
import { MAX_ANNULMENT_LINES_PER_TYPE, MAX_SEQUENTIAL } from '../../engine/sequences/index.js';
import { en } from './en.js';
import { es } from './es.js';

/**
 * The engine's rule codes as sentences for a person, one per code, used when
 * no field-specific sentence (rule-fields.ts) says it better. Each states the
 * rule the engine applies (the file that raises it is named where it is not
 * obvious); a limit that is a constant of the engine is imported, never
 * copied or read out of the English message.
 */
export interface RuleSentence {
  readonly es: string;
  readonly en: string;
}

const n = (value: number): string => new Intl.NumberFormat('es-DO').format(value);
const nEn = (value: number): string => new Intl.NumberFormat('en').format(value);

/** Every "missing" code reads as the issue form always said it. */
export const REQUIRED: RuleSentence = { es: es['issue.required'], en: en['issue.required'] };
const wrongKind: RuleSentence = { es: 'Tiene un tipo de valor que no se admite aquí.', en: 'Has a kind of value not accepted here.' };
const notFound: RuleSentence = { es: 'No existe, o no pertenece a este contribuyente.', en: 'Does not exist, or belongs to another taxpayer.' };

/** Shape rules: validation.ts names them after TypeBox's error kind. */
const SHAPE: Record<string, RuleSentence> = {
  ObjectRequiredProperty: REQUIRED,
  ObjectAdditionalProperties: { es: 'No es un campo que se admita aquí.', en: 'Is not a field accepted here.' },
  // Every minLength of the engine's schemas is 1 (Str, Text, the lists' Search).
  StringMinLength: { es: 'No puede estar vacío.', en: 'Must not be empty.' },
  StringMaxLength: { es: 'Es más largo de lo que se admite.', en: 'Is longer than accepted.' },
  StringPattern: { es: 'No tiene el formato que se admite.', en: 'Is not in the accepted format.' },
  StringFormat: { es: 'No tiene el formato que se admite.', en: 'Is not in the accepted format.' },
  Union: { es: 'No es uno de los valores que se admiten.', en: 'Is not one of the accepted values.' },
  ArrayMinItems: { es: 'Tiene menos elementos de los necesarios.', en: 'Has fewer items than needed.' },
  ArrayMaxItems: { es: 'Tiene más elementos de los que se admiten.', en: 'Has more items than accepted.' },
  String: wrongKind,
  Number: wrongKind,
  Integer: wrongKind,
  Boolean: wrongKind,
  Object: wrongKind,
  Array: wrongKind,
  Literal: wrongKind,
  Null: wrongKind,
  Invalid: { es: 'No es válido.', en: 'Is not valid.' },
  TooManyErrors: { es: 'Tiene más problemas de los que se listan; corrija estos y envíe de nuevo.', en: 'Has more problems than listed; correct these and send it again.' },
  'Validation.Failed': { es: 'La solicitud tiene campos no válidos.', en: 'The request has invalid fields.' },
  'Validation.Required': REQUIRED,
  'Validation.TooMany': { es: 'Nombra más elementos de los que se admiten.', en: 'Names more items than accepted.' },
};

/** The e-CF's rules (documents/validate/*.ts, documents/codes.ts) and the issuing refusals (ecf/issue.ts, limits/, submission/rules.ts). */
const ECF: Record<string, RuleSentence> = {
  'Ecf.FieldRequired': REQUIRED,
  'Ecf.FieldNotAllowed': { es: 'No se admite en este comprobante (por su tipo o por sus demás datos).', en: 'Not allowed on this e-CF (for its type or its other data).' },
  'Ecf.InvalidForType': { es: 'Este tipo de comprobante no admite ese valor.', en: 'This e-CF type does not accept that value.' },
  'Ecf.InvalidValue': { es: 'No es uno de los valores que se admiten.', en: 'Is not one of the accepted values.' },
  'Ecf.InvalidFormat': { es: 'No tiene el formato que se admite.', en: 'Is not in the accepted format.' },
  'Ecf.OutOfRange': { es: 'Está fuera del rango que se admite.', en: 'Is out of the accepted range.' },
  'Ecf.TooManyDecimals': { es: 'Tiene más decimales de los que se admiten.', en: 'Has more decimals than accepted.' },
  'Ecf.TooManyItems': { es: 'Tiene más elementos de los que se admiten.', en: 'Has more items than accepted.' },
  'Ecf.Duplicate': { es: 'Está repetido.', en: 'Is repeated.' },
  'Ecf.EmptyGroup': { es: 'Ajusta un grupo de ITBIS en el que no hay ninguna línea.', en: 'Adjusts an ITBIS group no line is in.' },
  'Ecf.DateInFuture': { es: 'La fecha no puede ser posterior a hoy.', en: 'The date must not be after today.' },
  'Ecf.DateAfterIssue': { es: 'La fecha no puede ser posterior a la fecha de emisión.', en: 'The date must not be after the issue date.' },
  'Ecf.SequenceExpired': { es: 'La secuencia venció antes de la fecha de emisión.', en: 'The sequence expired before the issue date.' },
  'Ecf.EncfTypeMismatch': { es: 'El e-NCF es de otro tipo de comprobante.', en: 'The e-NCF is of another e-CF type.' },
  'Ecf.ToleranceExceeded': { es: 'El monto declarado difiere del calculado más de lo que se tolera.', en: 'The declared amount differs from the computed one by more than the tolerance.' },
  'Ecf.DefaultApplied': { es: 'Se aplicó el valor por defecto de este tipo de comprobante.', en: "The e-CF type's default was applied." },
  'Ecf.IdempotencyKeyRequired': { es: 'Falta la clave de idempotencia; vuelva a abrir el formulario.', en: 'The idempotency key is missing; open the form again.' },
  'Ecf.IdempotencyKeyTooLong': { es: 'La clave de idempotencia es demasiado larga.', en: 'The idempotency key is too long.' },
  'Ecf.IdempotencyKeyReused': { es: 'Este formulario ya emitió otro comprobante con datos distintos; abra un formulario nuevo para un e-CF nuevo.', en: 'This form already issued an e-CF with other data; open a new form for a new e-CF.' },
  'Ecf.EncfAlreadyUsed': { es: 'Ese e-NCF ya fue usado por este contribuyente en este ambiente.', en: 'That e-NCF was already used by this taxpayer in this environment.' },
  'Ecf.EncfAnnulled': { es: 'Ese e-NCF fue anulado.', en: 'That e-NCF was annulled.' },
  'Ecf.DuplicateSuspected': { es: 'Coincide con un e-CF emitido hace poco (mismo comprador, total y líneas).', en: 'Matches an e-CF issued shortly before (same buyer, total and lines).' },
  'Ecf.EmissionPaused': { es: 'La emisión de nuevos e-CF está en pausa para este contribuyente.', en: 'Issuing new e-CF is paused for this taxpayer.' },
  'Ecf.MonthlyLimitReached': { es: 'Se alcanzó el límite mensual de e-CF en producción de este contribuyente; se admiten de nuevo el próximo mes.', en: "The taxpayer's monthly cap of production e-CF is reached; new ones are accepted next month." },
  'Ecf.SequenceConsumed': { es: 'La DGII consumió ese e-NCF con el rechazo; emita un e-CF nuevo.', en: 'The authority consumed that e-NCF with the rejection; issue a new e-CF.' },
  'Ecf.NotRetryable': { es: 'Solo se reintenta un e-CF fallido, en revisión o rechazado sin e-NCF consumido.', en: 'Only a failed, review, or rejected e-CF without a consumed e-NCF can be retried.' },
  'Ecf.NoRfce': { es: 'Este e-CF no tiene resumen (RFCE): solo lo tiene el tipo 32 por menos de DOP 250,000.', en: 'This e-CF has no summary (RFCE): only type 32 under DOP 250,000 has one.' },
  'Ecf.NotFound': notFound,
  'Emission.PausedByOperator': { es: 'El operador pausó la emisión de este contribuyente; solo el operador puede cambiar o quitar esa pausa.', en: 'The operator paused this taxpayer; only the operator can change or lift that pause.' },
  'Emission.UntilInPast': { es: 'Debe ser una fecha y hora futura.', en: 'Must be in the future.' },
};

/** e-NCF ranges and annulments (sequences/ranges.ts, next-number.ts, annulments.ts). */
const SEQUENCES: Record<string, RuleSentence> = {
  'Sequence.OutOfBounds': { es: `Debe ser un número de 1 a ${n(MAX_SEQUENTIAL)}.`, en: `Must be from 1 to ${nEn(MAX_SEQUENTIAL)}.` },
  'Sequence.Reversed': { es: 'El número final no puede ser menor que el inicial.', en: 'The last number must not be below the first.' },
  'Sequence.NoExpiryForType': { es: 'Los rangos de este tipo no tienen fecha de vencimiento; déjela vacía.', en: 'Ranges of this type have no expiry date; leave it empty.' },
  'Sequence.ExpiryRequired': { es: 'Los rangos de este tipo requieren fecha de vencimiento.', en: 'Ranges of this type need an expiry date.' },
  'Sequence.Overlap': { es: 'El rango se superpone con un rango ya cargado.', en: 'The range overlaps a loaded range.' },
  'Sequence.OutsideRange': { es: 'El número no está en ningún rango cargado de este tipo en este ambiente.', en: 'The number is in no loaded range of this type in this environment.' },
  'Sequence.Exhausted': { es: 'No hay un rango de e-NCF activo y vigente de este tipo con números disponibles en este ambiente; cargue uno.', en: 'No active, unexpired e-NCF range of this type has numbers left in this environment; load one.' },
  'Sequence.NumbersUsed': { es: 'Ese número ya fue usado por este contribuyente; la DGII nunca acepta un e-NCF dos veces.', en: 'That number was already used by this taxpayer; the authority never accepts an e-NCF twice.' },
  'Sequence.Backwards': { es: 'Mover el rango hacia atrás entregaría de nuevo números ya entregados.', en: 'Moving the range back would hand out numbers again.' },
  'Sequence.UnverifiedAfterRestore': { es: 'Este rango volvió de una copia de seguridad y no emite hasta verificar con la DGII que su próximo número no se usó.', en: 'This range came back from a backup and issues nothing until its next number is known unused.' },
  'Annulment.OutsideRange': { es: 'Los números no están dentro de un mismo rango autorizado de este tipo en este ambiente.', en: 'The numbers are not inside one authorized range of this type in this environment.' },
  'Annulment.AlreadyAnnulled': { es: 'Parte de esos números ya fue anulada.', en: 'Some of those numbers were annulled already.' },
  'Annulment.NumbersUsed': { es: 'Parte de esos números ya se entregó (asignado o emitido); solo se anulan números nunca usados.', en: 'Some of those numbers were handed out (allocated or issued); only never-used numbers are annulled.' },
  'Annulment.LinesOverlap': { es: 'Los rangos a anular se superponen.', en: 'The ranges to annul overlap.' },
  'Annulment.TooManyLines': { es: `Una anulación (ANECF) lleva como máximo ${n(MAX_ANNULMENT_LINES_PER_TYPE)} rangos por tipo.`, en: `An ANECF carries at most ${nEn(MAX_ANNULMENT_LINES_PER_TYPE)} ranges per type.` },
  'Annulment.TooManyNumbers': { es: 'Una anulación (ANECF) no admite tantos números; anúlelos en varias.', en: 'An ANECF does not count that many numbers; annul them in several.' },
  'Annulment.NotRetryable': { es: 'La DGII ya confirmó esta anulación; no se reenvía.', en: 'The authority confirmed this annulment; it is not sent again.' },
  'Annulment.InProgress': { es: 'Esta anulación se está enviando ahora; espere su respuesta.', en: 'This annulment is being sent now; wait for its answer.' },
  'Annulment.NotFound': notFound,
};

/** Certificates (certificates/certificates.ts, pkcs12.ts, inspect.ts; the console's upload). */
const CERTIFICATES: Record<string, RuleSentence> = {
  'Certificate.NotPkcs12': { es: 'El archivo no es un certificado PKCS#12 (.p12 o .pfx).', en: 'The file is not a PKCS#12 (.p12/.pfx) certificate file.' },
  'Certificate.WrongPassword': { es: 'La contraseña no abre este archivo de certificado.', en: 'The password does not open this certificate file.' },
  'Certificate.NoPrivateKey': { es: 'El archivo no contiene la clave privada; expórtelo de nuevo incluyendo la clave.', en: 'The file holds no private key; export it again with the key included.' },
  'Certificate.KeyMismatch': { es: 'La clave privada del archivo no corresponde a ningún certificado del archivo.', en: 'The private key in the file matches no certificate in it.' },
  'Certificate.UnsupportedEncryption': { es: 'El archivo usa un cifrado que no se admite.', en: 'The file uses an unsupported encryption.' },
  'Certificate.NotRsa': { es: 'La clave del certificado no es RSA; la DGII requiere RSA.', en: "The certificate's key is not RSA; the authority requires RSA." },
  'Certificate.KeyTooShort': { es: `La clave RSA del certificado es demasiado corta; se requieren al menos ${n(MIN_RSA_BITS)} bits.`, en: `The certificate's RSA key is too short; at least ${nEn(MIN_RSA_BITS)} bits are required.` },
  'Certificate.NotYetValid': { es: 'El certificado todavía no es válido.', en: 'The certificate is not valid yet.' },
  'Certificate.Expired': { es: 'El certificado está vencido.', en: 'The certificate has expired.' },
  'Certificate.FileTooLarge': { es: `El archivo es demasiado grande; un certificado ocupa como máximo ${n(MAX_CERTIFICATE_FILE_BYTES)} bytes.`, en: `The file is too large; a certificate file has at most ${nEn(MAX_CERTIFICATE_FILE_BYTES)} bytes.` },
  'Certificate.PasswordTooLong': { es: 'La contraseña es más larga de lo que se admite.', en: 'The password is longer than accepted.' },
  'Certificate.NotMultipart': { es: 'Envíe el certificado desde el formulario, con el archivo y la contraseña.', en: 'Send the certificate from the form, with the file and the password.' },
  'Certificate.Revoked': { es: 'Este certificado fue revocado y no puede volver a firmar; cargue uno nuevo.', en: 'This certificate was revoked and can never sign again; upload a new one.' },
  'Certificate.NoneActive': { es: 'El contribuyente no tiene un certificado válido y sin revocar para firmar; cargue uno.', en: 'The taxpayer has no valid, unrevoked certificate to sign with; upload one.' },
  'Certificate.Missing': { es: 'No hay un certificado de firma cargado para este contribuyente.', en: 'No signing certificate is loaded for this taxpayer.' },
  'Certificate.NotFound': notFound,
  // The upload's body as read (src/http/routes/multipart-errors.ts); the console's one upload is the certificate.
  'Multipart.FileTooLarge': { es: 'El archivo es más grande de lo que admite esta carga.', en: 'The file is larger than this upload takes.' },
  'Multipart.TooManyParts': { es: 'El formulario envió más partes de las que admite esta carga.', en: 'The form sent more parts than this upload takes.' },
};

/** Received e-CF and their commercial approval (reception/approve.ts). */
const RECEPTION: Record<string, RuleSentence> = {
  'ReceivedEcf.InvalidDecision': { es: 'Elija aceptar o rechazar.', en: 'Choose accept or reject.' },
  'ReceivedEcf.RejectionReasonRequired': { es: 'Indique el motivo del rechazo.', en: 'Give the reason for the rejection.' },
  'ReceivedEcf.RejectionReasonNotAllowed': { es: 'Una aceptación no lleva motivo de rechazo.', en: 'An acceptance carries no rejection reason.' },
  'ReceivedEcf.RejectionReasonTooLong': { es: `El motivo admite hasta ${n(MAX_REJECTION_REASON)} caracteres (el límite del ACECF).`, en: `The reason may have at most ${nEn(MAX_REJECTION_REASON)} characters (the ACECF's limit).` },
  'ReceivedEcf.NotReceived': { es: 'Este e-CF no se recibió (vea su acuse de recibo ARECF), así que no admite aprobación comercial.', en: 'This e-CF was not received (see its ARECF), so it takes no commercial approval.' },
  'ReceivedEcf.ApprovalNotApplicable': { es: 'La aprobación comercial no aplica a este tipo de comprobante.', en: 'Commercial approval does not apply to this e-CF type.' },
  'ReceivedEcf.AlreadyDecided': { es: 'Ya se registró una decisión para este e-CF.', en: 'A decision was already recorded for this e-CF.' },
  'ReceivedEcf.NotFound': notFound,
};

/** Webhooks (webhooks/endpoints.ts, address-guard.ts, delivery.ts). */
const WEBHOOKS: Record<string, RuleSentence> = {
  'Webhook.UrlNotAbsolute': { es: 'Debe ser una URL completa, p. ej. https://erp.ejemplo.com/hooks/ecf.', en: 'Must be an absolute URL such as https://erp.example.com/hooks/ecf.' },
  'Webhook.HttpsRequired': { es: 'Debe usar https.', en: 'Must use https.' },
  'Webhook.UrlScheme': { es: 'Usa un esquema que no se admite; use https.', en: 'Uses a scheme that is not accepted; use https.' },
  'Webhook.UrlCredentials': { es: 'No debe llevar usuario ni contraseña.', en: 'Must not carry a user name or password.' },
  'Webhook.UrlFragment': { es: 'No debe llevar fragmento (#...).', en: 'Must not carry a fragment (#...).' },
  'Webhook.AddressNotAllowed': { es: 'La dirección es privada o reservada; los webhooks no pueden llegar a ella.', en: 'The address is private or reserved; webhooks may not reach it.' },
  'Webhook.HostNotResolved': { es: 'El nombre del servidor no se resuelve.', en: 'The host does not resolve.' },
  'Webhook.UnknownEventType': { es: 'No es un tipo de evento; use uno existente (ecf.accepted), un comodín de categoría (ecf.*) o *.', en: 'Is not an event type; use an existing type (ecf.accepted), a category wildcard (ecf.*) or *.' },
  'Webhook.PingNotSubscribable': { es: 'webhook.ping solo lo envía la operación de prueba; no se puede suscribir.', en: 'webhook.ping is sent only by the ping operation and cannot be subscribed to.' },
  'Webhook.LimitReached': { es: 'El contribuyente tiene ya el máximo de webhooks; elimine uno antes de agregar otro.', en: 'The taxpayer holds the most webhooks allowed; delete one first.' },
  'Webhook.RotationRaced': { es: 'Otra solicitud cambió el secreto al mismo tiempo; cámbielo de nuevo.', en: 'Another request rotated the secret at the same moment; rotate again.' },
  'Webhook.NotFound': notFound,
  'WebhookDelivery.NotDead': { es: 'Solo se reintenta una entrega que agotó sus intentos.', en: 'Only a dead delivery can be retried.' },
  'WebhookDelivery.NotFound': notFound,
};

export const RULE_CODES: Readonly<Record<string, RuleSentence>> = { ...SHAPE, ...ECF, ...SEQUENCES, ...CERTIFICATES, ...RECEPTION, ...WEBHOOKS };
