/**
 * Every event type of the contract, in one place. Webhook subscriptions,
 * emitters and docs all read this list; a type not here does not exist.
 */
export const EVENT_TYPES = [
  'ecf.submitted',
  'ecf.accepted',
  'ecf.accepted_conditional',
  'ecf.rejected',
  'ecf.review',
  'ecf.failed',
  'ecf.duplicate_suspected',
  'inbound_ecf.received',
  'commercial_approval.received',
  'certificate.expiring',
  'certificate.expired',
  'sequence.expiring',
  'sequence.expired',
  'sequence.low',
  'sequence.exhausted',
  'contingency.activated',
  'contingency.deactivated',
  'tenant.emission_paused',
  'tenant.emission_resumed',
  'alert.rejection_spike',
  'alert.emission_silence',
  'tenant.monthly_limit_warning',
  'tenant.monthly_limit_reached',
  'usage.threshold_reached',
  'usage.limit_reached',
  'usage.tenant_threshold_reached',
  'usage.tenant_limit_reached',
  'usage.member_threshold_reached',
  'usage.member_limit_reached',
  'billing.period_closed',
  'webhook.ping',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Sent only by the ping operation; never a subscription target. */
export const UNSUBSCRIBABLE: ReadonlySet<EventType> = new Set(['webhook.ping']);

export const EVENT_API_VERSION = 1;

export const categoryOf = (type: EventType): string => type.slice(0, type.indexOf('.'));

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

/** The types an entry (exact type, `category.*` or `*`) names, subscribable or not; empty if it names nothing. */
export function typesNamedBy(pattern: string): EventType[] {
  if (pattern === '*') return [...EVENT_TYPES];
  if (pattern.endsWith('.*')) {
    const category = pattern.slice(0, -2);
    return EVENT_TYPES.filter((t) => categoryOf(t) === category);
  }
  return EVENT_TYPES.filter((t) => t === pattern);
}

/** The types a subscription entry (exact type, `category.*` or `*`) covers; empty if it names nothing. */
export function typesMatching(pattern: string): EventType[] {
  return typesNamedBy(pattern).filter((t) => !UNSUBSCRIBABLE.has(t));
}
