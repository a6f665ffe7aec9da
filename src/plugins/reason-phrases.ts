import { STATUS_CODES } from 'node:http';
import type { Plugin } from 'graphql-yoga';

/**
 * Every status line carries its reason phrase ("HTTP/1.1 404 Not Found"). The node:http adapter
 * writes a Response's statusText as the reason, and a Response built with only a status (the
 * platform's Response.json(body, { status }), used by the routes and errorResponse) has an empty
 * one. Registered last, so that it sees the response every other plugin settled on.
 */
export function useReasonPhrases(): Plugin {
  return {
    onResponse({ response, setResponse }) {
      const reason = STATUS_CODES[response.status];
      if (response.statusText || !reason) return;
      setResponse(new Response(response.body, { status: response.status, statusText: reason, headers: response.headers }));
    },
  };
}
