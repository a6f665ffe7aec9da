import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientIp } from '../../src/app.ts';

const request = (peer: string, forwardedFor?: string) =>
  ({ socket: { remoteAddress: peer }, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} }) as unknown as IncomingMessage;

// Anonymous quotas count per client IP: a forged X-Forwarded-For must not buy a fresh budget.
describe('client IP for anonymous quotas', () => {
  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', () => {
    expect(clientIp(request('203.0.113.9', '198.51.100.1'), [])).toBe('203.0.113.9');
    expect(clientIp(request('203.0.113.9', '198.51.100.1'), ['10.0.0.1'])).toBe('203.0.113.9');
  });

  it('takes the nearest untrusted hop behind trusted proxies', () => {
    expect(clientIp(request('10.0.0.1', '198.51.100.1'), ['10.0.0.1'])).toBe('198.51.100.1');
    // A client-supplied first entry cannot override what the proxy appended.
    expect(clientIp(request('10.0.0.1', '1.2.3.4, 198.51.100.1'), ['10.0.0.1'])).toBe('198.51.100.1');
    expect(clientIp(request('10.0.0.2', '198.51.100.1, 10.0.0.1'), ['10.0.0.1', '10.0.0.2'])).toBe('198.51.100.1');
  });

  it('unwraps IPv4-mapped IPv6 peers', () => {
    expect(clientIp(request('::ffff:10.0.0.1', '198.51.100.1'), ['10.0.0.1'])).toBe('198.51.100.1');
    expect(clientIp(request('::ffff:203.0.113.9'), [])).toBe('203.0.113.9');
  });
});
