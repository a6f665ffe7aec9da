import { parseArgs } from 'node:util';

const USAGE = `usage:
  lcf quickstart [--name NAME] [--plan PLAN] [--json]
  lcf admin org create --name NAME --plan free|pro|business|enterprise [--json]
  lcf admin key create --org ORG_ID [--test] [--bi] [--no-org-context] [--json]
  lcf admin key revoke KEY_ID
  lcf admin seed-demo --org ORG_ID --assets N [--json]
  lcf assets import FILE.csv --key KEY [--json]
  lcf blancco connect --key KEY --base-url URL [--country CC]   (portal key from BLANCCO_API_KEY)
  lcf blancco sync --key KEY [--only-successful] [--since YYYY-MM-DD] [--country CC] [--batch N] [--json]
  lcf worker
  lcf odata verify-proof FILE [--hash HEX] [--json]
quickstart creates an organisation (default "Quickstart", plan enterprise) and a live API key for it,
and prints the key with a first call to try: the one step from a new server to a keyed answer.
The server is found through LCF_URL (default http://localhost:3000); the admin token through
ADMIN_TOKEN or the file DATA_DIR/admin-token written by the server (DATA_DIR as the server's:
default the .data directory of this installation, wherever lcf is run from).
seed-demo writes into the database directly (DATABASE_URL, else DATA_DIR; with the embedded
database stop the server first). assets import sends the file to the server with the API key
(--key or LCF_API_KEY) in requests of up to 1000 rows; it exits 1 when any row failed.
blancco connect stores the organisation's Blancco Management Portal connection (the portal API key
from BLANCCO_API_KEY, never a flag); blancco sync syncs erasure reports batch after batch until the
portal has no more and exits 1 when any report failed (docs/erasure-sync.md).
worker runs organisation exports and webhook deliveries without the HTTP server, on PostgreSQL
(DATABASE_URL; run the servers with EXPORT_WORKER=off); it stops cleanly on SIGTERM.
odata verify-proof recomputes the X-Service-Proof-Hash of a saved OData response (the JSON body, or
curl -i output with headers) and compares it with --hash or the saved header; it exits 1 on a mismatch.`;

class UsageError extends Error {}

const PLANS = ['free', 'pro', 'business', 'enterprise'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function adminRequest(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  // Imported here, as every command's code is, so that `lcf --help` loads nothing but this file.
  const [{ adminTokenFile, readAdminToken }, { ADMIN_BASE }] = await Promise.all([
    import('../admin/admin-token.ts'),
    import('../admin/routes.ts'),
  ]);
  const base = serverUrl();
  const token = await readAdminToken(process.env);
  if (!token)
    throw new Error(
      `no admin token in ${adminTokenFile(process.env)}: start the server (npm start) once, which writes it, or set ADMIN_TOKEN (and DATA_DIR to the server's, if it uses another)`,
    );
  let response: Response;
  try {
    response = await fetch(`${base}${ADMIN_BASE}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    throw new Error(
      `cannot reach the server at ${base} (${(error as Error).message}): start it with npm start, or set LCF_URL to its address`,
    );
  }
  const payload = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status === 401)
    throw new Error(
      `the server at ${base} refused the admin token: is it the server of this DATA_DIR? Set ADMIN_TOKEN (or DATA_DIR) to its own`,
    );
  if (!response.ok) throw new Error(`${response.status} ${payload.code ?? ''}: ${payload.details || payload.error || response.statusText}`);
  return payload;
}

const serverUrl = () => (process.env.LCF_URL || 'http://localhost:3000').replace(/\/+$/, '');

function pick(obj: Record<string, unknown>, keys: string[]) {
  return Object.fromEntries(keys.map((k) => [k, obj[k]]));
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = (() => {
    try {
      return parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
          name: { type: 'string' },
          plan: { type: 'string' },
          org: { type: 'string' },
          assets: { type: 'string' },
          key: { type: 'string' },
          test: { type: 'boolean', default: false },
          bi: { type: 'boolean', default: false },
          'no-org-context': { type: 'boolean', default: false },
          hash: { type: 'string' },
          'base-url': { type: 'string' },
          country: { type: 'string' },
          since: { type: 'string' },
          batch: { type: 'string' },
          'only-successful': { type: 'boolean', default: false },
          json: { type: 'boolean', default: false },
          help: { type: 'boolean', short: 'h', default: false },
        },
      });
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  })();
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const command = positionals.slice(0, ['assets', 'odata', 'blancco'].includes(positionals[0] ?? '') ? 2 : 3).join(' ');
  const print = (result: Record<string, unknown>, text: string) => console.log(values.json ? JSON.stringify(result) : text);

  switch (positionals[0] === 'quickstart' ? 'quickstart' : command) {
    case 'quickstart': {
      const plan = values.plan ?? 'enterprise';
      if (!PLANS.includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
      const org = pick(await adminRequest('POST', '/orgs', { name: values.name?.trim() || 'Quickstart', plan }), ['id', 'name', 'plan']);
      const { key } = await adminRequest('POST', '/keys', { org_id: org.id, environment: 'live', bi_enabled: plan === 'enterprise' });
      const curl = `curl -H 'Authorization: Bearer ${key}' '${serverUrl()}/v1/footprint?brand=Dell&model=Latitude%205440&country=DE'`;
      return print(
        { org, key, curl },
        [
          `Created organisation "${org.name}" (${org.plan}, ${org.id}) and an API key for it:`,
          '',
          `  ${key}`,
          '',
          'Store it now: it is not shown again. A first call:',
          '',
          `  ${curl}`,
          '',
          'More first calls: README.md, "First calls"; the API reference: /v1/docs.',
        ].join('\n'),
      );
    }
    case 'admin org create': {
      if (!values.name?.trim()) throw new UsageError('--name is required');
      if (!values.plan || !PLANS.includes(values.plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')}`);
      const org = pick(await adminRequest('POST', '/orgs', { name: values.name, plan: values.plan }), ['id', 'name', 'plan']);
      return print(org, `created organization ${org.id} (${org.name}, ${org.plan})`);
    }
    case 'admin key create': {
      if (!values.org || !UUID.test(values.org)) throw new UsageError('--org ORG_ID (a UUID) is required');
      const key = pick(
        await adminRequest('POST', '/keys', {
          org_id: values.org,
          environment: values.test ? 'test' : 'live',
          bi_enabled: values.bi,
          org_context: !values['no-org-context'],
        }),
        ['id', 'key', 'prefix'],
      );
      return print(key, `created key ${key.id}\n${key.key}\nStore it now: it is not shown again.`);
    }
    case 'admin key revoke': {
      const id = positionals[3];
      if (!id || !UUID.test(id)) throw new UsageError('KEY_ID (a UUID) is required');
      const key = await adminRequest('DELETE', `/keys/${id}`);
      return print(pick(key, ['id', 'revoked_at']), `revoked key ${key.id} at ${key.revoked_at}`);
    }
    case 'admin seed-demo': {
      if (!values.org || !UUID.test(values.org)) throw new UsageError('--org ORG_ID (a UUID) is required');
      const n = Number(values.assets);
      if (!values.assets || !Number.isInteger(n) || n < 1 || n > 5_000_000)
        throw new UsageError('--assets N (an integer from 1 to 5000000) is required');
      const { seedDemoFromCli } = await import('../assets/cli.ts');
      const result = await seedDemoFromCli(values.org, n, (done, total) => {
        if (!values.json) console.error(`seeded ${done}/${total} assets (${Math.round((done / total) * 1000) / 10}%)`);
      });
      return print(
        { ...result },
        `seeded ${result.assets} assets into organization ${result.org_id} in ${(result.ms / 1000).toFixed(1)} s (${result.combinations} device/country footprints; serial numbers ${result.serial_prefix}0000001…)`,
      );
    }
    case 'assets import': {
      const file = positionals[2];
      if (!file) throw new UsageError('FILE (a CSV file) is required');
      const key = values.key || process.env.LCF_API_KEY;
      if (!key) throw new UsageError('--key KEY (or LCF_API_KEY) is required');
      const { importCsvFile } = await import('../assets/cli.ts');
      const base = serverUrl();
      const outcome = await importCsvFile(file, { baseUrl: base, key });
      if (outcome.failed > 0) process.exitCode = 1;
      const errors = outcome.errors.map((e) => `  row ${e.row}${e.serial_number ? ` (${e.serial_number})` : ''}: ${e.field}: ${e.reason}`);
      return print(
        { ...outcome },
        `imported ${outcome.file}: ${outcome.total_rows} rows, ${outcome.created} created, ${outcome.updated} updated, ${outcome.failed} failed${errors.length ? `\n${errors.join('\n')}` : ''}`,
      );
    }
    case 'odata verify-proof': {
      const file = positionals[2];
      if (!file) throw new UsageError('FILE (a saved OData response) is required');
      const { verifyProofFile } = await import('../odata/proof.ts');
      const check = await verifyProofFile(file, values.hash);
      if (check.matches === false) process.exitCode = 1;
      const verdict =
        check.matches === undefined
          ? 'no X-Service-Proof-Hash to compare with (pass --hash)'
          : check.matches
            ? 'matches'
            : `does NOT match ${check.claimed}`;
      return print({ ...check }, `hash ${check.hash} over ${check.rows} rows: ${verdict}`);
    }
    case 'blancco connect':
    case 'blancco sync': {
      const key = values.key || process.env.LCF_API_KEY;
      if (!key) throw new UsageError('--key KEY (or LCF_API_KEY) is required');
      const target = { baseUrl: serverUrl(), key };
      const { connectBlancco, syncBlancco } = await import('../erasure/cli.ts');
      if (command === 'blancco connect') {
        if (!values['base-url'])
          throw new UsageError('--base-url URL (the portal API base, e.g. https://api.eu-west-1.blancco.cloud) is required');
        const apiKey = process.env.BLANCCO_API_KEY;
        if (!apiKey) throw new UsageError('BLANCCO_API_KEY (the portal API key) must be set in the environment');
        const connection = await connectBlancco(target, { baseUrl: values['base-url'], apiKey, country: values.country });
        return print(
          connection,
          `connected ${connection.base_url} (key ${connection.api_key_hint}, default country ${connection.default_country})`,
        );
      }
      const limit = values.batch === undefined ? undefined : Number(values.batch);
      if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 1000))
        throw new UsageError('--batch must be an integer from 1 to 1000');
      const totals = await syncBlancco(
        target,
        { onlySuccessful: values['only-successful'], sinceDate: values.since, country: values.country, limit },
        (t) => {
          if (!values.json) console.error(`batch ${t.batches}: ${t.synced} synced, ${t.skipped} skipped, ${t.errors} errors so far`);
        },
      );
      if (totals.errors > 0) process.exitCode = 1;
      const errors = totals.errors_detail.map(
        (e) => `  ${e.uuid ?? '(no uuid)'} ${[e.brand, e.model].filter(Boolean).join(' ')}: ${e.error}`,
      );
      return print(
        { ...totals },
        `synced ${totals.synced}, skipped ${totals.skipped}, errors ${totals.errors} in ${totals.batches} batch(es)${errors.length ? `\n${errors.join('\n')}` : ''}`,
      );
    }
    case 'worker': {
      const { runWorkerProcess } = await import('./worker.ts');
      return runWorkerProcess();
    }
    default:
      throw new UsageError(command ? `unknown command "${command}"` : 'no command given');
  }
}

try {
  await run(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`lcf: ${error.message} (lcf --help for usage)`);
    process.exit(2);
  }
  console.error(`lcf: ${(error as Error).message}`);
  process.exit(1);
}
