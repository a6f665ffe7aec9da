import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Plugin } from 'graphql-yoga';
import { answerCostsNothing } from '../auth/access-plugin.ts';
import type { Caller } from '../auth/caller.ts';
import { ApiError, invalidParameter } from '../errors/api-error.ts';
import { errorResponse } from '../errors/render.ts';
import { currentRequest } from '../observability/request-context.ts';
import { checkText, TEXT_LIMITS } from '../validation/text.ts';
import type { IdempotencyStore, StoredAnswer } from './store.ts';

/** The request header (draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Set on a replayed answer. */
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Answers larger than this are not kept: the key is let go and a repeat runs again (docs/api.md). */
export const MAX_STORED_BYTES = 4 * 1024 * 1024;

declare module '../kernel/routes.ts' {
  interface RouteDeclaration {
    /** The route takes an Idempotency-Key (src/idempotency/): a POST that creates or spends. */
    idempotent?: true;
  }
}

declare module '../observability/request-context.ts' {
  interface RequestState {
    /** The idempotency key this request holds (useIdempotency): its answer is stored for the key's repeats. */
    idempotencyKey?: { scope: string; key: string };
  }
}

/** The Idempotency-Key the request being served holds (its answer will be kept for repeats), or null. */
export const heldIdempotencyKey = (): string | null => currentRequest()?.idempotencyKey?.key ?? null;

/** Headers that belong to one answer, not to what it says: never stored, each replay gets its own. */
const PER_ANSWER_HEADERS =
  /^(x-request-id|x-ratelimit-.*|retry-after|date|content-length|connection|keep-alive|transfer-encoding|set-cookie)$/i;

/**
 * Statuses a repeat could change: never stored, the key is let go (5xx, 408, 409 a state that may
 * change, 425, 429 a limit that resets). Every other answer, 2xx and the other 4xx, is final.
 */
const isFinal = (status: number) => status < 500 && ![408, 409, 425, 429].includes(status);

/** Keys are scoped per API key: its organisation, its environment (a test key's sandbox apart) and its id. */
const scopeOf = (caller: Extract<Caller, { kind: 'key' }>) => `${caller.keyOrgId}/${caller.environment}/${caller.keyId}`;

export const idempotencyKeyReused = () =>
  new ApiError(
    422,
    'IDEMPOTENCY_KEY_REUSED',
    'Idempotency key reused',
    `${IDEMPOTENCY_KEY_HEADER}: already used within 24 hours for another request (method, path, query or body); use a new key for a different request`,
  );

const idempotencyKeyInUse = (retryAfterSeconds: number) =>
  new ApiError(
    409,
    'IDEMPOTENCY_KEY_IN_USE',
    'Idempotency key in use',
    `${IDEMPOTENCY_KEY_HEADER}: the first request with this key is still running; retry after it has answered`,
    { 'Retry-After': String(retryAfterSeconds) },
  );

/** The key as sent: the text rules (control characters, length), and not blank. */
function checkKey(key: string): void {
  checkText(key, IDEMPOTENCY_KEY_HEADER, { maxLength: TEXT_LIMITS.idempotencyKey });
  if (key.trim() === '') throw invalidParameter(IDEMPOTENCY_KEY_HEADER, 'must not be empty');
}

/** SHA-256 of what the request asks: method, path with query, and the body's raw bytes. */
async function fingerprintOf(request: Request, url: URL): Promise<string> {
  const hash = createHash('sha256').update(`${request.method} ${url.pathname}${url.search}\n`);
  hash.update(new Uint8Array(await request.clone().arrayBuffer()));
  return hash.digest('hex');
}

function replay(answer: StoredAnswer): Response {
  const headers = new Headers(answer.headers);
  headers.set(REPLAYED_HEADER, 'true');
  return new Response(answer.body.byteLength > 0 ? new Uint8Array(answer.body) : null, { status: answer.status, headers });
}

async function storedAnswer(response: Response): Promise<StoredAnswer | undefined> {
  const body = new Uint8Array(await response.clone().arrayBuffer());
  if (body.byteLength > MAX_STORED_BYTES) return undefined;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!PER_ANSWER_HEADERS.test(name)) headers[name] = value;
  });
  return { status: response.status, headers, body };
}

export interface IdempotencyOptions {
  /** How long a repeat waits for the first request with its key to answer, then 409 IDEMPOTENCY_KEY_IN_USE. Default 10 s. */
  waitMs?: number;
}

/**
 * Idempotency-Key on the routes that declare it (`idempotent`, RouteTable), after access control (the
 * caller's key is known) and before the route runs. The first request with a key reserves it and its
 * final answer is stored; a repeat with the same key and request gets that answer again, marked
 * `Idempotent-Replayed: true`, without running the route or spending the request quota; the same key for
 * another request is 422 IDEMPOTENCY_KEY_REUSED; a repeat while the first still runs waits for its
 * answer, up to `waitMs`, then 409 IDEMPOTENCY_KEY_IN_USE. Callers without a key keep nothing: the
 * header is checked and the request runs as without it (docs/api.md, "Retries and Idempotency-Key").
 */
export function useIdempotency(store: IdempotencyStore, { waitMs = 10_000 }: IdempotencyOptions = {}): Plugin {
  return {
    async onRequest({ request, url, endResponse }) {
      const state = currentRequest();
      const key = request.headers.get(IDEMPOTENCY_KEY_HEADER);
      if (!state?.route?.route?.idempotent || key === null) return;
      try {
        checkKey(key);
        if (state.caller?.kind !== 'key') return;
        const scope = scopeOf(state.caller);
        const fingerprint = await fingerprintOf(request, url);
        const deadline = Date.now() + waitMs;
        for (let pause = 25; ; pause = Math.min(pause * 2, 500)) {
          const claim = await store.claim(scope, key, fingerprint);
          if (claim.kind === 'reserved') {
            state.idempotencyKey = { scope, key };
            return;
          }
          if (claim.kind === 'reused') throw idempotencyKeyReused();
          if (claim.kind === 'replay') {
            answerCostsNothing(state);
            return endResponse(replay(claim.answer));
          }
          if (Date.now() + pause > deadline) throw idempotencyKeyInUse(1);
          await sleep(pause);
        }
      } catch (error) {
        endResponse(errorResponse([error]));
      }
    },
    async onResponse({ response }) {
      const state = currentRequest();
      const held = state?.idempotencyKey;
      if (!held) return;
      state.idempotencyKey = undefined;
      try {
        const answer = isFinal(response.status) ? await storedAnswer(response) : undefined;
        if (answer) await store.complete(held.scope, held.key, answer);
        else await store.release(held.scope, held.key);
      } catch (error) {
        // The answer goes out all the same; the key stays reserved until its lease ends, then a repeat runs again.
        state.log.warn({ err: error }, 'storing the answer of an idempotency key failed');
      }
    },
  };
}
