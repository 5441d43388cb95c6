import { Type, type Static } from '@sinclair/typebox';
import { PageNumber, PageSize, Paged } from '../paging.js';
import { DateTime, Nullable, Uuid } from '../schema-types.js';
import { MAX_EVENT_ENTRIES } from './rules.js';

export const MAX_URL_LENGTH = 2048;
export const MAX_DESCRIPTION_LENGTH = 500;

const Url = Type.String({
  minLength: 1,
  maxLength: MAX_URL_LENGTH,
  description: 'Absolute URL of the receiver; https unless the operator turned on development mode',
  errorMessage: `must be an absolute URL of at most ${MAX_URL_LENGTH} characters`,
});

const Events = Type.Array(
  Type.String({ minLength: 1, maxLength: 100, errorMessage: 'must be an event type, a category wildcard such as ecf.* or *' }),
  {
    minItems: 1,
    maxItems: MAX_EVENT_ENTRIES,
    description: `1 to ${MAX_EVENT_ENTRIES} entries: exact types (ecf.accepted), category wildcards (ecf.*) or *`,
    errorMessage: `must hold 1 to ${MAX_EVENT_ENTRIES} entries`,
  },
);

const Description = Nullable(
  Type.String({ maxLength: MAX_DESCRIPTION_LENGTH, errorMessage: `must be a text of at most ${MAX_DESCRIPTION_LENGTH} characters, or null` }),
);

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Events, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    enabled: Type.Optional(
      Type.Boolean({ description: 'false pauses deliveries; true re-enables and resets consecutiveFailures', errorMessage: 'must be true or false' }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const WebhookEndpointView = Type.Object(
  {
    id: Uuid(),
    tenantId: Uuid(),
    url: Type.String(),
    description: Nullable(Type.String()),
    events: Type.Array(Type.String()),
    enabled: Type.Boolean(),
    consecutiveFailures: Type.Integer(),
    disabledReason: Nullable(Type.String({ description: '`consecutive_failures` (disabled by the service) or `paused` (PATCH enabled:false)' })),
    disabledAt: Nullable(DateTime()),
    createdAt: DateTime(),
    updatedAt: Nullable(DateTime()),
  },
  { description: 'Never contains the secret' },
);
export type WebhookEndpointView = Static<typeof WebhookEndpointView>;

export const CreatedWebhook = Type.Object({
  endpoint: WebhookEndpointView,
  secret: Type.String({ description: 'whsec_ and base64; shown only now' }),
});
export type CreatedWebhook = Static<typeof CreatedWebhook>;

export const SecretResult = Type.Object({ secret: Type.String({ description: 'The new whsec_ secret; the previous one stopped working' }) });
export type SecretResult = Static<typeof SecretResult>;

export const PingResult = Type.Object({
  delivered: Type.Boolean(),
  statusCode: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
});
export type PingResult = Static<typeof PingResult>;

export const DELIVERY_STATUSES = ['pending', 'delivered', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const WebhookDeliveryView = Type.Object({
  id: Uuid(),
  eventId: Type.String(),
  eventType: Type.String(),
  status: Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s))),
  attempts: Type.Integer(),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  nextAttemptAt: DateTime({ description: 'When a pending delivery is due; for delivered and dead ones, when the last attempt was made' }),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
export type WebhookDeliveryView = Static<typeof WebhookDeliveryView>;

export const DeliveriesQuery = Type.Object(
  {
    page: Type.Optional(PageNumber()),
    pageSize: Type.Optional(PageSize()),
  },
  { additionalProperties: false },
);
export type DeliveriesQuery = Static<typeof DeliveriesQuery>;

export const PagedDeliveries = Paged(WebhookDeliveryView);
export type PagedDeliveries = Static<typeof PagedDeliveries>;
