/** Stable codes of the matrix rules (shape errors keep validation.ts's TypeBox codes). */
export const ECF_CODES = {
  FieldRequired: 'Ecf.FieldRequired',
  FieldNotAllowed: 'Ecf.FieldNotAllowed',
  InvalidForType: 'Ecf.InvalidForType',
  InvalidValue: 'Ecf.InvalidValue',
  InvalidFormat: 'Ecf.InvalidFormat',
  OutOfRange: 'Ecf.OutOfRange',
  TooManyDecimals: 'Ecf.TooManyDecimals',
  TooManyItems: 'Ecf.TooManyItems',
  Duplicate: 'Ecf.Duplicate',
  EmptyGroup: 'Ecf.EmptyGroup',
  DateInFuture: 'Ecf.DateInFuture',
  DateAfterIssue: 'Ecf.DateAfterIssue',
  SequenceExpired: 'Ecf.SequenceExpired',
  EncfTypeMismatch: 'Ecf.EncfTypeMismatch',
  ToleranceExceeded: 'Ecf.ToleranceExceeded',
  DefaultApplied: 'Ecf.DefaultApplied',
} as const;
