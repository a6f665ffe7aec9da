import type { KeyObject } from 'node:crypto';
import * as z from 'zod';
import { ConfigError } from './config-error.ts';
import { dataDirOf } from './data-dir.ts';
import { parseSigningKeys } from './signing-keys.ts';
import { parseSecretsKey } from '../secrets/secret-box.ts';
import { listenHosts, parseAllowedHosts, type AllowedHost } from './allowed-hosts.ts';

// Configuration is read from the environment once, at start-up, and passed down from there.
const port = z.coerce.number().int().min(0).max(65535);
const url = (protocols: string[]) =>
  z
    .string()
    .url()
    .refine((value) => protocols.some((p) => value.startsWith(`${p}://`)), `must start with ${protocols.join(':// or ')}://`);

/** An optional variable turned into a value by `parse`, whose error message becomes the configuration error. */
const parsedWith = <T>(parse: (text: string) => T) =>
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      try {
        return parse(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });

const envSchema = z.object({
  PORT: port.default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).optional(),
  DATABASE_URL: url(['postgres', 'postgresql']).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  REDIS_URL: url(['redis', 'rediss']).optional(),
  REDIS_PREFIX: z
    .string()
    .regex(/^[\w:.-]{1,64}$/, 'letters, digits and : . - _ only')
    .default('lcf:'),
  ADMIN_TOKEN: z.string().min(24, 'must be at least 24 characters').optional(),
  PUBLIC_BASE_URL: url(['http', 'https']).optional(),
  // Hosts whose requests get links to themselves while PUBLIC_BASE_URL is unset; unset: the listen address (docs/certificates.md).
  ALLOWED_HOSTS: parsedWith(parseAllowedHosts),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUSTED_PROXY: z
    .string()
    .optional()
    .transform((v) =>
      v
        ? v
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    ),
  // e.g. "minute.enterprise=5000,day.free=50,report.pro=40": a deployment's own quota values (defaults: docs/quotas.md);
  // `report` is the monthly report allowance (docs/reports.md).
  QUOTA_LIMITS: z
    .string()
    .regex(
      /^((day|minute|report)\.(free|pro|business|enterprise)=\d+)(,(day|minute|report)\.(free|pro|business|enterprise)=\d+)*$/,
      'must look like "minute.enterprise=5000,day.free=50,report.pro=40"',
    )
    .optional()
    .transform((v) => {
      const limits: { day: Record<string, number>; minute: Record<string, number>; report: Record<string, number> } = {
        day: {},
        minute: {},
        report: {},
      };
      for (const part of v ? v.split(',') : []) {
        const [key, value] = part.split('=') as [string, string];
        const [window, plan] = key.split('.') as ['day' | 'minute' | 'report', string];
        limits[window][plan] = Number(value);
      }
      return limits;
    }),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  ICECAT_BASE_URL: url(['http', 'https']).optional(),
  ICECAT_USERNAME: z.string().min(1).optional(),
  ICECAT_API_TOKEN: z.string().min(1).optional(),
  ICECAT_CONTENT_TOKEN: z.string().min(1).optional(),
  ICECAT_TIMEOUT_MS: z.coerce.number().int().min(1).max(60_000).default(5_000),
  // Organisation exports (docs/exports.md): the worker runs inside the server unless "off" (then `lcf worker` runs it).
  EXPORT_WORKER: z.enum(['inline', 'off']).default('inline'),
  // How long a worker's claim on a job holds without renewal: a crashed worker's job is taken over after this.
  EXPORT_LEASE_SECONDS: z.coerce.number().int().min(3).max(3600).default(60),
  // A PDF render thread idle this long stops, giving its memory back (docs/operations.md, "Memory").
  RENDER_IDLE_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  // Set EXPORT_S3_BUCKET to keep archives in an S3-compatible store; unset: DATA_DIR/exports.
  EXPORT_S3_BUCKET: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name (3-63 characters a-z 0-9 . -)')
    .optional(),
  EXPORT_S3_ENDPOINT: url(['http', 'https']).optional(),
  EXPORT_S3_REGION: z.string().min(1).default('us-east-1'),
  EXPORT_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  EXPORT_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  EXPORT_S3_FORCE_PATH_STYLE: z.enum(['true', 'false']).default('false'),
  // Which processes send webhook deliveries: the server too unless "off" (then only `lcf worker` processes send them).
  WEBHOOK_DISPATCH: z.enum(['inline', 'off']).default('inline'),
  // Where `lcf worker` answers /healthz, /readyz and /metrics (on HOST).
  WORKER_PORT: port.default(3001),
  // Webhook URLs resolving to loopback, private or link-local addresses are refused unless "true" (tests, private networks).
  WEBHOOK_ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).default('false'),
  // 32 bytes (hex or base64) sealing the certificate signing key and third-party API keys at rest; unset: kept in the database (docs/certificates.md).
  SECRETS_KEY: parsedWith(parseSecretsKey),
  // Erasure-console requests: per-attempt timeout (docs/erasure-sync.md).
  BLANCCO_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
  // Console base URLs resolving to loopback, private or link-local addresses are refused unless "true" (tests, private networks).
  ERASURE_ALLOW_PRIVATE_URLS: z.enum(['true', 'false']).default('false'),
  // PEM: Ed25519 keys, the first signs certificates, the others (rotated out) only verify.
  CERT_SIGNING_KEY: parsedWith(parseSigningKeys),
});

export type Config = Readonly<{
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  redis: Readonly<{ url: string; prefix: string }> | undefined;
  adminToken: string | undefined;
  publicBaseUrl: string | undefined;
  /** ALLOWED_HOSTS, else the listen address and the loopback names at PORT: what links may point at without PUBLIC_BASE_URL. */
  allowedHosts: readonly AllowedHost[];
  /** http://<HOST, localhost for a wildcard>:<PORT>: links of a request to a host outside allowedHosts. */
  listenOrigin: string;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  trustedProxies: readonly string[];
  quotaLimits: Record<'day' | 'minute' | 'report', Partial<Record<'free' | 'pro' | 'business' | 'enterprise', number>>>;
  shutdownTimeoutMs: number;
  icecat: Readonly<{ baseUrl: string; username?: string; apiToken?: string; contentToken?: string; timeoutMs: number }> | undefined;
  /** Certificate keys from CERT_SIGNING_KEY; unset: kept in the database (src/certificates/keys.ts). */
  certSigningKeys: readonly KeyObject[] | undefined;
  exports: Readonly<{
    worker: 'inline' | 'off';
    leaseSeconds: number;
    /** Unset: archives under DATA_DIR/exports, served through signed URLs by the service. */
    s3:
      | Readonly<{
          bucket: string;
          endpoint?: string;
          region: string;
          accessKeyId?: string;
          secretAccessKey?: string;
          forcePathStyle: boolean;
        }>
      | undefined;
  }>;
  webhooks: Readonly<{ dispatch: 'inline' | 'off'; allowPrivateUrls: boolean }>;
  /** How long an idle PDF render thread lives (RENDER_IDLE_SECONDS). */
  renderIdleMs: number;
  /** Port of `lcf worker`'s health and metrics endpoint. */
  workerPort: number;
  /** SECRETS_KEY; unset: generated and kept in the database (src/secrets/secret-box.ts). */
  secretsKey: Buffer | undefined;
  erasure: Readonly<{ timeoutMs: number; allowPrivateUrls: boolean }>;
}>;

export { ConfigError };

/** Validates the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, the way shells and .env files usually mean them.
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid environment variable ${String(issue.path[0])}: ${issue.message}`);
  }
  const e = parsed.data;
  const listen = listenHosts(e.HOST, e.PORT);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    dataDir: dataDirOf({ DATA_DIR: e.DATA_DIR }),
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redis: e.REDIS_URL ? { url: e.REDIS_URL, prefix: e.REDIS_PREFIX } : undefined,
    adminToken: e.ADMIN_TOKEN,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    allowedHosts: e.ALLOWED_HOSTS ?? listen.allowedHosts,
    listenOrigin: listen.listenOrigin,
    logLevel: e.LOG_LEVEL,
    trustedProxies: e.TRUSTED_PROXY,
    quotaLimits: e.QUOTA_LIMITS,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    icecat: e.ICECAT_BASE_URL
      ? {
          baseUrl: e.ICECAT_BASE_URL,
          username: e.ICECAT_USERNAME,
          apiToken: e.ICECAT_API_TOKEN,
          contentToken: e.ICECAT_CONTENT_TOKEN,
          timeoutMs: e.ICECAT_TIMEOUT_MS,
        }
      : undefined,
    certSigningKeys: e.CERT_SIGNING_KEY,
    exports: {
      worker: e.EXPORT_WORKER,
      leaseSeconds: e.EXPORT_LEASE_SECONDS,
      s3: e.EXPORT_S3_BUCKET
        ? {
            bucket: e.EXPORT_S3_BUCKET,
            endpoint: e.EXPORT_S3_ENDPOINT,
            region: e.EXPORT_S3_REGION,
            accessKeyId: e.EXPORT_S3_ACCESS_KEY_ID,
            secretAccessKey: e.EXPORT_S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.EXPORT_S3_FORCE_PATH_STYLE === 'true',
          }
        : undefined,
    },
    webhooks: { dispatch: e.WEBHOOK_DISPATCH, allowPrivateUrls: e.WEBHOOK_ALLOW_PRIVATE_URLS === 'true' },
    renderIdleMs: e.RENDER_IDLE_SECONDS * 1000,
    workerPort: e.WORKER_PORT,
    secretsKey: e.SECRETS_KEY,
    erasure: { timeoutMs: e.BLANCCO_TIMEOUT_MS, allowPrivateUrls: e.ERASURE_ALLOW_PRIVATE_URLS === 'true' },
  });
}
