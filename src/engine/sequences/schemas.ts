import { Type, type Static } from '@sinclair/typebox';
import { DateString, DateTime, EnvironmentSchema, Integer, Nullable, Text, Uuid } from '../schema-types.js';
import { ECF_TYPES } from '../documents/payload.js';

export const EcfTypeSchema = Type.Union(
  ECF_TYPES.map((t) => Type.Union([Type.Literal(t), Type.Literal(String(t))])),
  { errorMessage: `must be one of ${ECF_TYPES.join(', ')}` },
);

export const Sequential = (what: string) =>
  Integer({ description: what, errorMessage: 'must be a whole number from 1 to 9999999999' });

export const AddRangeInput = Type.Object(
  {
    tenantId: Uuid(),
    environment: EnvironmentSchema,
    type: EcfTypeSchema,
    rangeFrom: Sequential('First authorized sequence number'),
    rangeTo: Sequential('Last authorized sequence number'),
    expiresOn: Type.Optional(Nullable(DateString())),
  },
  { additionalProperties: false },
);

/** `ecf sequence next`: which type's next number. */
export const NextNumberQuery = Type.Object({ tenantId: Uuid(), environment: EnvironmentSchema, type: EcfTypeSchema }, { additionalProperties: false });

/** `ecf sequence next --set`: the next number a type hands out in an environment (operator task, no HTTP route). */
export const SetNextInput = Type.Object(
  {
    tenantId: Uuid(),
    environment: EnvironmentSchema,
    type: EcfTypeSchema,
    next: Sequential('The number the type hands out next'),
    backwards: Type.Optional(Type.Boolean({ description: 'Confirms a move below the present pointer' })),
  },
  { additionalProperties: false },
);

export const AllocateBody = Type.Object(
  { environment: EnvironmentSchema, type: EcfTypeSchema },
  { additionalProperties: false },
);

export const SequenceRangeView = Type.Object({
  id: Uuid(),
  environment: EnvironmentSchema,
  type: Type.Integer(),
  series: Type.String(),
  rangeFrom: Type.Integer(),
  rangeTo: Type.Integer(),
  next: Type.Integer({ description: 'The next number the allocator hands out' }),
  capacity: Type.Integer(),
  remaining: Type.Integer(),
  isLowStock: Type.Boolean(),
  expiresOn: Nullable(Type.String({ format: 'date', description: 'null for types 32 and 34, which do not expire' })),
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
  typeName: Type.String(),
});
export type SequenceRangeView = Static<typeof SequenceRangeView>;

export const AllocatedSequence = Type.Object({
  encf: Type.String(),
  type: Type.Integer(),
  series: Type.String(),
  sequential: Type.Integer(),
});
export type AllocatedSequence = Static<typeof AllocatedSequence>;

/** An ANECF carries at most 10 Anulacion (one per type) of at most 10,000 Secuencias each (its XSD). */
export const MAX_ANNULMENT_LINES_PER_TYPE = 10_000;
export const MAX_ANNULMENT_LINES = 10 * MAX_ANNULMENT_LINES_PER_TYPE;
export const MAX_REASON_LENGTH = 500;

export const AnnulmentLineInput = Type.Object(
  {
    type: EcfTypeSchema,
    series: Type.String({ pattern: '^[A-Z]$', errorMessage: 'must be the series letter of the range (E for e-CF)' }),
    rangeFrom: Sequential('First number to annul'),
    rangeTo: Sequential('Last number to annul'),
  },
  { additionalProperties: false },
);

export const AnnulBody = Type.Object(
  {
    environment: EnvironmentSchema,
    reason: Text({ maxLength: MAX_REASON_LENGTH, description: 'Why the numbers are annulled; kept with the record, not sent' }),
    lines: Type.Array(AnnulmentLineInput, {
      minItems: 1,
      maxItems: MAX_ANNULMENT_LINES,
      errorMessage: `must list 1 to ${MAX_ANNULMENT_LINES} ranges to annul`,
    }),
  },
  { additionalProperties: false },
);

export const AnnulmentLineView = Type.Object({
  type: Type.Integer(),
  series: Type.String(),
  rangeFrom: Type.Integer(),
  rangeTo: Type.Integer(),
  count: Type.Integer(),
  typeName: Type.String(),
});

/** The contract's annulment request record. */
export const AnnulmentView = Type.Object({
  id: Uuid(),
  environment: EnvironmentSchema,
  reason: Type.String(),
  status: Type.String({ description: 'sending, voided, rejected or failed' }),
  totalCount: Type.Integer(),
  lines: Type.Array(AnnulmentLineView),
  taxauthCode: Nullable(Type.String({ description: "The authority's codigo in its last answer (15: Satisfactorio)" })),
  taxauthMessages: Type.Array(Type.String(), { description: "The authority's mensajes in its last answer" }),
  lastError: Nullable(Type.String({ description: 'Why the last send got no answer; null when it got one' })),
  attempts: Type.Integer({ description: 'Sends of the signed ANECF so far' }),
  submittedAt: Nullable(DateTime({ description: 'When the authority last answered a send' })),
  voidedAt: Nullable(DateTime({ description: 'When the authority confirmed the annulment' })),
  createdAt: DateTime(),
});
export type AnnulmentView = Static<typeof AnnulmentView>;
