import type { WebhookDeliveryView, WebhookEndpointView } from '../engine/webhooks/index.js';

/** The columns of `ecf webhook list`. */
export const ENDPOINT_COLUMNS = ['id', 'url', 'events', 'enabled', 'failures', 'disabledReason'] as const;

export function endpointRow(e: WebhookEndpointView): Record<string, unknown> {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    enabled: e.enabled ? 'yes' : 'no',
    failures: e.consecutiveFailures,
    disabledReason: e.disabledReason,
  };
}

/** The columns of `ecf webhook deliveries`. */
export const DELIVERY_COLUMNS = ['id', 'eventType', 'status', 'attempts', 'lastStatusCode', 'nextAttemptAt', 'lastError'] as const;

export function deliveryRow(d: WebhookDeliveryView): Record<string, unknown> {
  return { ...d };
}
