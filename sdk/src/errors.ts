/** A refusal of the service: its HTTP status and, for its JSON error bodies, the stable `code` (docs/errors.md). */
export class LcfError extends Error {
  override readonly name = 'LcfError';
  constructor(
    readonly status: number,
    /** The service's error code (`NOT_FOUND`, `RATE_LIMITED`, ...), or undefined when the body had none. */
    readonly code: string | undefined,
    message: string,
    /** The error body as answered (a GraphQL refusal: `{errors, data}`). */
    readonly body: unknown,
  ) {
    super(message);
  }

  static async from(response: Response, body?: unknown): Promise<LcfError> {
    const answer = body === undefined ? await response.text().then((text) => parseJson(text)) : body;
    const { code, error, details, message } = (answer ?? {}) as Record<string, unknown>;
    const text = [error ?? message, details].filter((part) => typeof part === 'string').join(': ');
    return new LcfError(response.status, typeof code === 'string' ? code : undefined, text || `HTTP ${response.status}`, answer);
  }
}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** What openapi-fetch answers: `data` for a 2xx answer, `error` (the parsed body) otherwise. */
export interface ApiResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of an openapi-fetch answer; throws LcfError for a refusal. */
export async function unwrap<T>(result: ApiResult<T>): Promise<T> {
  if (!result.response.ok) throw await LcfError.from(result.response, result.error ?? null);
  return result.data as T;
}
