import { createHmac, randomBytes } from 'node:crypto';
import { SECRET_BYTES } from './rules.js';

/**
 * Standard Webhooks v1 (https://www.standardwebhooks.com): the secret is
 * `whsec_` and base64 key bytes; the signature is `v1,` and the base64
 * HMAC-SHA256, under those key bytes, of `{webhook-id}.{webhook-timestamp}.{body}`.
 */
export const SECRET_PREFIX = 'whsec_';

export const newWebhookSecret = (): string => SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');

export function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of a signed delivery. */
export function signedHeaders(secret: string, id: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureOf(secret, id, timestamp, body),
  };
}
