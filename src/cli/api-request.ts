/** A request of the `lcf` command to the server's API with an API key; a non-2xx answer throws its code and details in one line. */
export async function apiRequest(
  { baseUrl, key }: { baseUrl: string; key: string },
  method: string,
  path: string,
  body?: unknown,
  timeoutMs = 600_000,
  // biome-ignore lint/suspicious/noExplicitAny: the API's JSON answer; each command reads the fields of its route
): Promise<Record<string, any>> {
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new Error(`cannot reach the server at ${baseUrl}: ${(error as Error).message}`);
  }
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const payload = (await response.json().catch(() => ({}))) as Record<string, any>;
  if (!response.ok)
    throw new Error(
      `${response.status} ${payload.code ?? ''}: ${payload.details || payload.message || payload.error || response.statusText}`,
    );
  return payload;
}
