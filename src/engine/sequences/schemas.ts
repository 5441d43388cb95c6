import { Type, type Static } from '@sinclair/typebox';
import { DateString, EnvironmentSchema, Integer, Nullable, Uuid } from '../schema-types.js';
import { ECF_TYPES } from '../documents/payload.js';

export const EcfTypeSchema = Type.Union(
  ECF_TYPES.map((t) => Type.Union([Type.Literal(t), Type.Literal(String(t))])),
  { errorMessage: `must be one of ${ECF_TYPES.join(', ')}` },
);

const Sequential = (what: string) =>
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
