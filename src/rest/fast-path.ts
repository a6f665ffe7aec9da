import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLField, GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { authenticate, type Caller } from '../auth/caller.ts';
import { checkQuota, giveBackQuota } from '../auth/access-plugin.ts';
import { PUBLIC } from '../auth/access.ts';
import { fieldAccess, type RestRoute } from '../graphql/builder.ts';
import { graphqlContext } from '../graphql/context.ts';
import { compileJsonWriter, type JsonWriter } from '../graphql/json-writer.ts';
import { REST_BASE } from '../kernel/paths.ts';
import type { RouteMatch, RouteTable } from '../kernel/routes.ts';
import { currentRequest, type RequestState } from '../observability/request-context.ts';
import { sendOnNode } from '../plugins/node-answer.ts';
import type { Services } from '../services.ts';

/** The most an answer is served again from memory, whatever its resolver said (docs/architecture.md, "Fast path"). */
export const ANSWER_REUSE_MS = 60_000;

interface Learned {
  /** The arguments the resolver was called with (coerced and validated). */
  args: Record<string, unknown>;
  /** Until when the answer may be served again (ms since the epoch). */
  reusableUntil: number;
}

declare module '../observability/request-context.ts' {
  interface RequestState {
    /** What the resolver of a fast-path route said of its answer (rememberAnswer). */
    fastAnswer?: Learned;
  }
}

/**
 * Called by the resolver of a route that declares `fastPath`: the arguments it answered, and until when the
 * same answer holds (default: as long as the process runs, at most ANSWER_REUSE_MS from now; a time in the past: not at all).
 */
export function rememberAnswer(args: object, { until = Number.POSITIVE_INFINITY }: { until?: number } = {}): void {
  const state = currentRequest();
  if (state) state.fastAnswer = { args: args as Record<string, unknown>, reusableUntil: until };
}

interface FastRoute {
  path: string;
  /** Whose answers are alike (RestRoute.fastPath). */
  sharing: NonNullable<RestRoute['fastPath']>;
  resolve: GraphQLFieldResolver<unknown, unknown>;
  write: JsonWriter;
  /** Looked up at the first answer: routers declare their routes in the table as the pipeline mounts them. */
  match?: RouteMatch;
}

interface Answer {
  body: string;
  /** The success headers the resolver set (Cache-Control, Vary), lower-case names. */
  headers: [string, string][];
  until: number;
}

interface KnownQuery {
  route: FastRoute;
  args: Record<string, unknown>;
  /** Answers by caller scope ('' for a route whose answers are shared). */
  answers: Map<string, Answer>;
}

/** Whose answers a caller shares on a `per-organisation` route: a key acting for an organisation, or everyone else. */
const organisationScope = (caller: Caller) => (caller.kind === 'key' && caller.orgContext ? caller.orgId : '');

export interface RestFastPathOptions {
  /** The schema whose root fields declaring `extensions.rest.fastPath` are served (GET routes without path parameters). */
  schema: GraphQLSchema;
  /** The service's route table: the answers are labelled with their route, as the pipeline's are. */
  routes: RouteTable;
  /** How many query strings are remembered. */
  capacity?: number;
  /** How many characters of answers are kept, all scopes together (the oldest query strings are forgotten first): 16 Mi by default. */
  answerChars?: number;
}

/**
 * Stage 0, on node:http before Yoga: a GET of a route whose field declares `fastPath`, with a query
 * string the pipeline has answered once (SOFA parsed and checked it; the resolver remembered its
 * arguments), is answered again without Yoga, SOFA and GraphQL execution. Authentication and the quota
 * are access control's (authenticate, checkQuota); the answer is the field's own resolver (Pothos's
 * original, the one the pipeline runs after scope and input checks, which the remembered arguments
 * passed), written in the field's type (compileJsonWriter) as SOFA writes it, or, while the resolver
 * said it holds, the same answer again from memory; the headers, access-log line and metrics are the
 * pipeline's (sendOnNode). Anything but the plain success (an unknown query, a bad key, a used-up
 * quota, an error) falls through to the pipeline, which answers it as usual: a refused request spends
 * nothing, and one admitted here is given back first (giveBackQuota), so the pipeline counts it once.
 */
export class RestFastPath {
  private readonly byPath = new Map<string, FastRoute>();
  private readonly known = new Map<string, KnownQuery>();
  private readonly capacity: number;
  private readonly answerBudget: number;
  private heldChars = 0;

  constructor(
    private readonly services: Services,
    private readonly options: RestFastPathOptions,
  ) {
    this.capacity = options.capacity ?? 10_000;
    this.answerBudget = options.answerChars ?? 16 * 1024 * 1024;
    for (const field of Object.values(options.schema.getQueryType()?.getFields() ?? {})) {
      const route = field.extensions.rest as RestRoute | undefined;
      if (!route?.fastPath) continue;
      const path = `${REST_BASE}${route.path}`;
      this.byPath.set(path, { path, sharing: route.fastPath, resolve: originalResolver(field), write: compileJsonWriter(field.type) });
    }
  }

  /** Answers a repeated GET of a fast route; false when the request must go through the pipeline. */
  async tryServe(req: IncomingMessage, res: ServerResponse, state: RequestState): Promise<boolean> {
    if (req.method !== 'GET') return false;
    const known = this.known.get(req.url ?? '');
    if (!known) return false;
    try {
      const caller = await authenticate(req.headers.authorization ?? null, state.ip, this.services.keys);
      if (!(await checkQuota(this.services, caller)).allowed) return false;
      const { route } = known;
      const scope = route.sharing === 'per-organisation' ? organisationScope(caller) : '';
      const held = known.answers.get(scope);
      const reused = held !== undefined && held.until > Date.now();
      const answer = reused
        ? held
        : this.remember(
            known,
            scope,
            route.write(await route.resolve(undefined, known.args, graphqlContext(this.services, caller), undefined as never)),
            state,
          );
      state.route = route.match ??= this.options.routes.match('GET', route.path);
      // Names in lower case, as the Fetch Headers of every other answer put them on the wire.
      const headers = new Map([
        ['content-type', 'application/json; charset=utf-8'],
        ['content-length', String(Buffer.byteLength(answer.body))],
        ...answer.headers,
      ]);
      this.services.metrics.fastPathAnswered(route.path, reused ? 'memory' : 'resolver');
      sendOnNode(res, state, this.services.metrics, { method: 'GET', pathname: route.path, status: 200, headers, body: answer.body });
      return true;
    } catch {
      // The pipeline counts the request again: what was counted here is given back.
      await giveBackQuota(this.services, state);
      return false;
    }
  }

  /** Learns the arguments of each successful GET of a fast route, as its resolver remembered them (its answer is written at the first repeat). */
  plugin(): Plugin {
    return {
      onResponse: ({ request, response }) => {
        const learned = currentRequest()?.fastAnswer;
        if (response.status !== 200 || !learned || request.method !== 'GET') return;
        const url = new URL(request.url);
        const route = this.byPath.get(url.pathname);
        const target = url.pathname + url.search;
        if (!route || this.known.has(target)) return;
        if (this.known.size >= this.capacity) this.forgetOldest();
        this.known.set(target, { route, args: learned.args, answers: new Map() });
      },
    };
  }

  private remember(known: KnownQuery, scope: string, body: string, state: RequestState): Answer {
    // What the resolver said of the answer it just gave (rememberAnswer); without a word, it is not served again.
    const until = Math.min(state.fastAnswer?.reusableUntil ?? 0, Date.now() + ANSWER_REUSE_MS);
    const headers: [string, string][] = [];
    state.successHeaders.forEach((value, name) => headers.push([name, value]));
    const answer = { body, headers, until };
    this.heldChars += body.length - (known.answers.get(scope)?.body.length ?? 0);
    known.answers.set(scope, answer);
    while (this.heldChars > this.answerBudget && this.known.size > 1) this.forgetOldest();
    return answer;
  }

  private forgetOldest(): void {
    const [target, oldest] = this.known.entries().next().value!;
    for (const answer of oldest.answers.values()) this.heldChars -= answer.body.length;
    this.known.delete(target);
  }
}

/** The field's resolver as written, without the checks Pothos's plugins wrap it in (the arguments passed them once). */
function originalResolver(field: GraphQLField<unknown, unknown>): GraphQLFieldResolver<unknown, unknown> {
  const route = field.extensions.rest as RestRoute;
  const original = field.extensions.pothosOriginalResolve as GraphQLFieldResolver<unknown, unknown> | undefined;
  if (route.method !== 'GET' || route.path.includes(':') || !original)
    throw new TypeError(`Query.${field.name}: only a GET route without path parameters, with a resolver of its own, can declare fastPath`);
  // Authentication and the quota are checked here, not the field's scopes: only an open field may be served without them.
  const access = fieldAccess(field);
  if (JSON.stringify(access) !== JSON.stringify(PUBLIC))
    throw new TypeError(`Query.${field.name}: a fastPath route must be open to every caller`);
  return original;
}
