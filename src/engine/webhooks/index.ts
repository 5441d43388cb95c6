// The door of engine/webhooks: what the adapters (src/http, src/cli, src/jobs, src/watch) use of this area.
// Named re-exports only, so the list is a deliberate choice. The bundle keeps every module a door names, so a door
// re-exports no heavy module (pdfkit, exceljs, undici, libxml2) that a light command would then load.
export { getDelivery, listDeliveries, pingWebhook, retryDelivery } from './delivery.js';
export { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from './endpoints.js';
export {
  CreateWebhookBody,
  CreatedWebhook,
  DeliveriesQuery,
  PagedDeliveries,
  PingResult,
  SecretResult,
  UpdateWebhookBody,
  WebhookEndpointView,
  type WebhookDeliveryView,
} from './schemas.js';
