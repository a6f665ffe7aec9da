import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// Name resolution is the guard's input: answered here from a table, so multi-address and
// rebinding cases need no DNS server. IP literals are answered as the system would (themselves).
const answers: Record<string, { address: string; family: number }[] | 'missing' | 'never'> = {
  'public.example': [
    { address: '93.184.215.14', family: 4 },
    { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
  ],
  'mixed.example': [
    { address: '93.184.215.14', family: 4 },
    { address: '10.0.0.5', family: 4 },
  ],
  'v6-unique-local.example': [{ address: 'fd12:3456::1', family: 6 }],
  'nat64.example': [{ address: '64:ff9b::a00:1', family: 6 }],
  'missing.example': 'missing',
  'slow.example': 'never',
};
const lookup = vi.hoisted(() => vi.fn());
vi.mock('node:dns/promises', () => ({ lookup }));
// Test files share their worker's modules (vitest.config.ts): load the guard again, over the mock.
vi.resetModules();

const { checkOutboundUrl, pinnedLookup, resolvePublicHost } = await import('../../src/net/url-guard.ts');

// …and leaves the real one to the files after it.
afterAll(() => {
  vi.doUnmock('node:dns/promises');
  vi.resetModules();
});

beforeAll(() => {
  lookup.mockImplementation(async (host: string) => {
    const answer = answers[host];
    if (answer === 'missing') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    if (answer === 'never') return new Promise(() => {});
    return answer ?? [{ address: host, family: host.includes(':') ? 6 : 4 }];
  });
});

describe('webhook URL guard', () => {
  it('accepts a host whose every address is public, and answers them all', async () => {
    expect(await resolvePublicHost(new URL('https://public.example/hook'), false)).toEqual({ addresses: answers['public.example'] });
  });

  it.each([
    ['http://mixed.example/', 'resolves to a private address'],
    ['http://v6-unique-local.example/', 'resolves to a private address'],
    ['http://nat64.example/', 'resolves to a non-public address (rfc6052)'],
    ['http://missing.example/', 'host could not be resolved'],
  ])('refuses %s: %s', async (url, reason) => {
    expect(await resolvePublicHost(new URL(url), false)).toEqual({ refused: reason });
    await expect(checkOutboundUrl(url, false)).rejects.toMatchObject({
      status: 400,
      code: 'WEBHOOK_URL_NOT_ALLOWED',
      details: expect.stringContaining(reason),
    });
  });

  it('gives up on a resolution that does not answer in time', async () => {
    const started = Date.now();
    expect(await resolvePublicHost(new URL('http://slow.example/'), false, 50)).toEqual({ refused: 'host could not be resolved' });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('with private URLs allowed: any address is answered, and registration does not resolve at all', async () => {
    expect(await resolvePublicHost(new URL('http://mixed.example/'), true)).toEqual({ addresses: answers['mixed.example'] });
    lookup.mockClear();
    expect((await checkOutboundUrl('http://missing.example/hook', true)).href).toBe('http://missing.example/hook');
    expect(lookup).not.toHaveBeenCalled();
  });

  describe('pinnedLookup', () => {
    let server: http.Server;
    let port: number;
    const hosts: string[] = [];
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        hosts.push(req.headers.host ?? '');
        res.end('pinned');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('connects to the checked address whatever the name resolves to now (DNS rebinding)', async () => {
      // The name resolves to nothing at connection time; the request still reaches the pinned address, with its Host header.
      const status = await new Promise<number>((resolve, reject) => {
        http
          .request(
            `http://missing.example:${port}/x`,
            { method: 'POST', lookup: pinnedLookup([{ address: '127.0.0.1', family: 4 }]), agent: false },
            (res) => {
              res.resume();
              resolve(res.statusCode!);
            },
          )
          .on('error', reject)
          .end();
      });
      expect(status).toBe(200);
      expect(hosts).toEqual([`missing.example:${port}`]);
    });
  });
});
