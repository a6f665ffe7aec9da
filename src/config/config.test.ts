import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has defaults that run the embedded database on port 3000', () => {
    const config = loadConfig({});
    expect(config.port).toBe(3000);
    expect(config.databaseUrl).toBeUndefined();
    expect(config.dataDir).toMatch(/\.data$/);
    expect(config.icecat).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ DATABASE_URL: 'mysql://localhost/x' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ ADMIN_TOKEN: 'short' }, 'ADMIN_TOKEN'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ ICECAT_BASE_URL: 'ftp://icecat' }, 'ICECAT_BASE_URL'],
    [{ WEBHOOK_DISPATCH: 'worker' }, 'WEBHOOK_DISPATCH'],
    [{ WORKER_PORT: '-1' }, 'WORKER_PORT'],
  ])('names the bad variable in %j', (env, name) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(`^invalid environment variable ${name}: `));
  });

  it('treats empty variables as unset and parses lists', () => {
    const config = loadConfig({ DATABASE_URL: '', TRUSTED_PROXY: '10.0.0.1, 10.0.0.2', PORT: '8080' });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.trustedProxies).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(config.port).toBe(8080);
  });

  it('says which processes do background work: servers send webhooks and run exports unless switched off', () => {
    expect(loadConfig({})).toMatchObject({ exports: { worker: 'inline' }, webhooks: { dispatch: 'inline' }, workerPort: 3001 });
    expect(loadConfig({ EXPORT_WORKER: 'off', WEBHOOK_DISPATCH: 'off', WORKER_PORT: '9100' })).toMatchObject({
      exports: { worker: 'off' },
      webhooks: { dispatch: 'off' },
      workerPort: 9100,
    });
  });
});
