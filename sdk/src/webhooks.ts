import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** A message the service posts to a webhook endpoint (docs/webhooks.md, "Events and payloads"). */
export interface WebhookMessage<Data = Record<string, unknown>> {
  type: string;
  timestamp: string;
  data: Data;
}

export type WebhookCheck = { valid: true; id: string; message: WebhookMessage } | { valid: false; reason: string };

export interface WebhookCheckOptions {
  /** How far the webhook-timestamp may be from `now`, in seconds (default 300, the Standard Webhooks default). */
  toleranceSeconds?: number;
  /** The clock (default: now). */
  now?: Date;
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

const header = (headers: HeaderBag, name: string): string | undefined => {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value.join(' ') : value;
};

/**
 * Verifies a webhook request as Standard Webhooks specifies it: one `v1,` entry of webhook-signature
 * must be the HMAC-SHA256 (keyed with the endpoint's `whsec_` secret) of
 * `<webhook-id>.<webhook-timestamp>.<raw body>`, compared in constant time, and the timestamp must be
 * within `toleranceSeconds` of now (a replayed old message is refused). Pass the raw body as
 * received, not re-serialised JSON.
 */
export function verifyWebhook(secret: string, body: string | Buffer, headers: HeaderBag, options: WebhookCheckOptions = {}): WebhookCheck {
  const { toleranceSeconds = 300, now = new Date() } = options;
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) return { valid: false, reason: 'webhook-id, webhook-timestamp or webhook-signature missing' };
  if (!/^\d+$/.test(timestamp)) return { valid: false, reason: `webhook-timestamp ${timestamp} is not Unix seconds` };
  const skew = Number(timestamp) - Math.floor(now.getTime() / 1000);
  if (Math.abs(skew) > toleranceSeconds)
    return {
      valid: false,
      reason: `webhook-timestamp is ${Math.abs(skew)} s ${skew < 0 ? 'old' : 'ahead'}, more than ${toleranceSeconds} s`,
    };
  const raw = typeof body === 'string' ? body : body.toString('utf8');
  const expected = Buffer.from(new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), raw));
  const matches = signatures.split(' ').some((entry) => {
    const candidate = Buffer.from(entry);
    return entry.startsWith('v1,') && candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
  if (!matches) return { valid: false, reason: 'no v1 signature of webhook-signature matches the body under this secret' };
  return { valid: true, id, message: JSON.parse(raw) as WebhookMessage };
}
