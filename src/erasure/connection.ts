import type { KeyCaller } from '../auth/caller.ts';
import type { PrismaClient } from '../db/database.ts';
import type { Services } from '../services.ts';
import { ApiError, invalidParameter } from '../errors/api-error.ts';
import { auditEntry } from '../audit/audit-log.ts';
import { checkOutboundUrl } from '../net/url-guard.ts';
import { checkRegionCode } from '../reference/region-check.ts';
import { SecretBoxError } from '../secrets/secret-box.ts';

export const PROVIDER = 'blancco';
export const DEFAULT_COUNTRY = 'NL';
export const API_KEY_LENGTH = { min: 8, max: 200 } as const;

export interface ErasureContext {
  prisma: PrismaClient;
  caller: KeyCaller;
  services: Services;
}

/** The API key is bound to its organisation: a sealed value copied into another organisation's row does not open. */
const secretContext = (orgId: string) => `erasure_connections.api_key:${orgId}`;

const notConfigured = () =>
  new ApiError(
    409,
    'ERASURE_NOT_CONFIGURED',
    'Erasure connection missing',
    'this organisation has no Blancco connection; configure it with PUT /v1/blancco/connection',
  );

/** A region code the engine has a grid factor for, normalised (nl -> NL), or a 400 naming `field`. */
export const checkCountry = (services: Services, input: string, field: string): string => checkRegionCode(services.reference, input, field);

const connectionNotFound = () =>
  new ApiError(404, 'ERASURE_CONNECTION_NOT_FOUND', 'Erasure connection not found', 'this organisation has no Blancco connection');

export async function findConnection(prisma: PrismaClient) {
  return prisma.erasureConnection.findFirst({ where: { provider: PROVIDER } });
}

/** The connection as shown to its organisation: never the key, only its last four characters. */
export async function showConnection(prisma: PrismaClient) {
  const connection = await findConnection(prisma);
  if (!connection) throw connectionNotFound();
  return connection;
}

/** Creates or replaces the organisation's connection; the key is sealed before it reaches the database. */
export async function saveConnection(ctx: ErasureContext, input: { base_url: string; api_key: string; default_country?: string | null }) {
  const { prisma, caller, services } = ctx;
  const { allowPrivateUrls } = services.config.erasure;
  const url = await checkOutboundUrl(input.base_url, allowPrivateUrls, 'base_url', {
    code: 'ERASURE_CONSOLE_URL_NOT_ALLOWED',
    what: 'erasure console URLs',
  });
  if (url.protocol !== 'https:' && !allowPrivateUrls)
    throw invalidParameter('base_url', 'must be an https URL (the API key travels in a header)');
  if (url.search)
    throw invalidParameter('base_url', 'must not contain a query string: give the API base, e.g. https://api.eu-west-1.blancco.cloud');
  const baseUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  const apiKey = input.api_key.trim();
  if (apiKey.length < API_KEY_LENGTH.min) throw invalidParameter('api_key', `must be at least ${API_KEY_LENGTH.min} characters`);
  if (/\s/.test(apiKey)) throw invalidParameter('api_key', 'must not contain spaces');
  const country = input.default_country == null ? DEFAULT_COUNTRY : checkCountry(services, input.default_country, 'default_country');
  const data = {
    base_url: baseUrl,
    api_key_encrypted: services.secrets.seal(apiKey, secretContext(caller.orgId)),
    api_key_hint: apiKey.slice(-4),
    default_country: country,
    configured_by_key: caller.keyId,
  };
  return prisma.$transaction(async (tx) => {
    const connection = await tx.erasureConnection.upsert({
      where: { org_id_provider: { org_id: caller.orgId, provider: PROVIDER } },
      create: { ...data, org_id: caller.orgId, provider: PROVIDER },
      update: data,
    });
    await tx.auditLog.create({
      data: auditEntry(
        caller,
        'org.erasure.connection.configured',
        { type: 'erasure_connection', id: connection.id },
        { base_url: baseUrl, api_key_hint: data.api_key_hint, default_country: country },
      ),
    });
    return connection;
  });
}

export async function deleteConnection(ctx: ErasureContext) {
  const { prisma, caller } = ctx;
  return prisma.$transaction(async (tx) => {
    const connection = await tx.erasureConnection.findFirst({ where: { provider: PROVIDER } });
    if (!connection) throw connectionNotFound();
    await tx.erasureConnection.delete({ where: { id: connection.id } });
    await tx.auditLog.create({
      data: auditEntry(
        caller,
        'org.erasure.connection.deleted',
        { type: 'erasure_connection', id: connection.id },
        { base_url: connection.base_url },
      ),
    });
    return connection;
  });
}

/** The connection with its key opened, or 409: none configured, or a key that no longer opens (SECRETS_KEY changed). */
export async function openConnection(ctx: ErasureContext) {
  const connection = await findConnection(ctx.prisma);
  if (!connection) throw notConfigured();
  try {
    return { connection, apiKey: ctx.services.secrets.open(connection.api_key_encrypted, secretContext(ctx.caller.orgId)) };
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    throw new ApiError(
      409,
      'ERASURE_CONNECTION_UNREADABLE',
      'Erasure connection misconfigured',
      "the stored API key cannot be decrypted (the service's SECRETS_KEY changed); configure the connection again",
    );
  }
}
