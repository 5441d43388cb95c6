import { Type } from '@sinclair/typebox';
import { parseJsonColumn } from '../json-column.js';

/**
 * `webhook_endpoints.events`: the event types (or `*` patterns) an endpoint
 * subscribed to. Written by webhooks/endpoints.ts; kept here because the
 * fan-out, below webhooks, reads it in the same transaction as each event.
 */
export const EndpointEventsColumn = Type.Array(Type.String());

export const endpointEventsOf = (stored: string): string[] => parseJsonColumn(EndpointEventsColumn, stored, 'webhook_endpoints.events');
