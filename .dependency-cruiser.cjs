/**
 * Which module may import which: `npm run check:deps` (in CI after the typecheck). The layers and
 * their directions are described in docs/architecture.md ("Layers").
 *
 * tsPreCompilationDeps: true makes the cruiser read the TypeScript source before compilation, so
 * `import type` and type-only named imports count as dependencies (dependency type "type-only"):
 * a cycle made of types alone is still a cycle, and an upward type import still crosses a layer.
 */

// The kernel: what every layer may use and what imports nothing above it.
const KERNEL = '^src/(kernel|errors|audit)/|^src/observability/(request-context|logger)[.]ts$';
// Below the kernel: generated Prisma types and client.
const GENERATED = '^src/generated/';
// Shared infrastructure: below the features, above the kernel.
const INFRASTRUCTURE = '^src/(auth|config|db|validation|net|resilience|secrets)/|^src/observability/metrics[.]ts$';
const TEST_CODE = '^test/|[.]test[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle, type-only imports included.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'kernel-imports-nothing-above',
      severity: 'error',
      comment: 'Paths, request context, errors, audit and the logger import only each other and generated types.',
      from: { path: KERNEL, pathNot: TEST_CODE },
      to: { path: '^src/', pathNot: `${KERNEL}|${GENERATED}` },
    },
    {
      name: 'infrastructure-imports-no-feature',
      severity: 'error',
      comment:
        'Configuration, the database, outbound networking, resilience and secrets import only each other, the kernel and generated code: ' +
        'what a feature contributes to them (a config value\'s parser, reference data to load) lives below or is called from above.',
      from: { path: '^src/(config|db|net|resilience|secrets)/', pathNot: TEST_CODE },
      to: { path: '^src/', pathNot: `${INFRASTRUCTURE}|${KERNEL}|${GENERATED}` },
    },
    {
      name: 'validation-knows-no-rest',
      severity: 'error',
      comment: 'Input validation serves every interface: the OpenAPI document types it adds limits to live in the kernel (src/kernel/openapi-types.ts).',
      from: { path: '^src/validation/', pathNot: TEST_CODE },
      to: { path: '^src/rest/' },
    },
    {
      name: 'engine-imports-nothing-outside-itself',
      severity: 'error',
      comment: 'The carbon engine is pure: no other src module, no Node I/O (its data files are JSON imports).',
      from: { path: '^src/footprint/engine/', pathNot: TEST_CODE },
      to: { path: '^src/', pathNot: '^src/footprint/engine/' },
    },
    {
      name: 'engine-does-no-io',
      severity: 'error',
      from: { path: '^src/footprint/engine/', pathNot: TEST_CODE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'no-test-code-in-src',
      severity: 'error',
      comment: 'Service code never imports tests or their support code.',
      from: { path: '^src/', pathNot: TEST_CODE },
      to: { path: TEST_CODE },
    },
    {
      name: 'no-dev-dependency-at-run-time',
      severity: 'error',
      comment:
        'A production install (`npm ci --omit=dev`, docs/operations.md) has no devDependencies: what the service runs imports none (types aside, which the build erases).',
      from: { path: ['^src/', '^bin/', '^sdk/'], pathNot: TEST_CODE },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'observability-imports-no-feature-above',
      severity: 'error',
      comment: 'Metrics and logging serve every layer: they import no admin, REST, GraphQL or OData code and no wiring.',
      from: { path: '^src/observability/' },
      to: { path: '^src/(admin|rest|graphql|odata|explore|console)/|^src/(services|app|pipeline|main|startup|background)[.]ts$' },
    },
    {
      name: 'access-control-knows-no-interface',
      severity: 'error',
      comment: 'Generic access control reads one credential scheme; interfaces (OData Basic) adapt theirs in their own plugin.',
      from: { path: '^src/auth/' },
      to: { path: '^src/(odata|rest|graphql|admin)/' },
    },
    {
      name: 'pipeline-stages-know-no-feature',
      comment: 'The generic stages of the request pipeline (src/plugins/) serve every route: they import the kernel, observability and database types only.',
      severity: 'error',
      from: { path: '^src/plugins/' },
      to: { path: '^src/', pathNot: `${KERNEL}|^src/(plugins|observability|db)/|${GENERATED}` },
    },
    {
      name: 'services-handed-down',
      severity: 'error',
      comment: 'The services are built at start-up and handed down: shared infrastructure declares what it needs instead of importing src/services.ts.',
      from: { path: `^src/(auth|config|db|observability|plugins|validation|net|resilience|secrets)/|${KERNEL}` },
      to: { path: '^src/services[.]ts$' },
    },
    {
      name: 'wiring-on-top',
      severity: 'error',
      comment: 'app.ts (with its pipeline.ts), startup.ts and background.ts are wired from main.ts and the CLIs; no lower module imports them.',
      from: { path: '^src/', pathNot: `^src/(main|cli/.*|startup|app)[.]ts$|${TEST_CODE}` },
      to: { path: '^src/(main|app|pipeline|startup|background)[.]ts$' },
    },
    {
      name: 'sdk-is-a-client',
      severity: 'error',
      comment: 'The SDK (sdk/) is a client of the service: it talks to it over HTTP and imports none of its code, scripts or tests.',
      from: { path: '^sdk/' },
      to: { path: '^(src|test|scripts|bench|bin)/' },
    },
    {
      name: 'worker-loads-no-http-interface',
      severity: 'error',
      comment: '`lcf worker` runs background work only: nothing it imports, types included, leads to the REST plugin or sofa-api.',
      from: { path: '^src/cli/worker[.]ts$' },
      to: { path: 'node_modules/sofa-api/|^src/rest/rest-plugin[.]ts$', reachable: true },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    // Generated Prisma code and the builds (dist/, which process tests import; sdk/dist/) are not checked inside.
    exclude: { path: '^src/generated/prisma/|^dist/|^sdk/dist/' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
    cache: false,
  },
};
