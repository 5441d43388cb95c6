/**
 * Which way imports go (issue 26, step 2). `npm run lint:imports` checks it;
 * `npm test` runs that first, after the build.
 *
 * The engine's layers, lowest first. A file may import its own layer and the
 * layers below it, never one above. Within a layer (the domain areas listed
 * on one line) there is no order, only "no circles".
 *
 *   1. foundation    clock, money, ids, errors, schema-types, validation, json-column,
 *                    paging, data-dir (src/engine/*.ts), log/logger.ts and
 *                    log/request-id.ts,
 *                    net/ (HTTP agent, addresses and CIDR blocks),
 *                    xml/ (canonical XML, the schema gate), signing/
 *   2. store         store/ (kysely, dialects, transactions, locking); its
 *                    migrations are apart, see "migrations" below
 *   3. records       the rows every area reads: tenants/lookup.ts
 *                    (requireTenant, requireOrganization) and
 *                    log/state-change.ts (logs after the store commits)
 *   4. settings      settings/ (the catalogue validates with net/addresses.ts
 *                    and its own layouts.ts, and looks tenants up in
 *                    records: it imports no domain area)
 *   5. secrets       secrets/ (reads the secrets.store setting)
 *   6. work          work/ (the durable queue: claim, lease, pump, lanes;
 *                    never the handlers of the work it runs)
 *   7. events        events/ (catalogue, outbox and the webhook fan-out
 *                    written in the event's own transaction)
 *   8. limits        limits/ (caps, pauses, usage; reads tenants through
 *                    records)
 *   9. tenants       tenants/ writes (organizations, tenants, keys, members;
 *                    they note usage in limits)
 *  10. certificates  certificates/
 *  11. taxauth       taxauth/ (the authority's client, its status, the
 *                    listener port its calls report through)
 *  12. documents     documents/ (model, validation, totals, XML builders)
 *  13. representation representation/ (the printed PDF)
 *  14. sequences     sequences/ (ranges, numbers, annulments)
 *  15. ecf records   ecf/views.ts, ecf/queries.ts, ecf/search-key.ts, ecf/list-counts.ts, ecf/amount-band.ts
 *                    (and their PostgreSQL paths ecf/list-counts-postgres.ts, ecf/search-postgres.ts): the
 *                    stored e-CF as read (its view, lookups, listing), which
 *                    sending reads back; like tenants/lookup.ts, the reads
 *                    sit below the writes that use them
 *  16. submission    submission/ (sending, ladders, contingency and the
 *                    watch that switches it from the authority's status)
 *  17. ecf           ecf/ issuing (numbers, stores, enqueues the sending)
 *  18. areas that only consume the ones above, in no order among
 *      themselves: reception/, webhooks/, health/, metrics/, setup/,
 *      certification/, retention/ (the store-clean job's rules),
 *      export/ (the period export and its verifier), console-sessions/
 *      (the web console's sign-in)
 *  19. composition   engine.ts (opens the store and makes the ports: the
 *                    Engine), the work registry (work-handlers.ts) and the
 *                    background work that runs it (background-work.ts),
 *                    backup/ (it opens engines of its own). The Engine
 *                    type lives in engine-types.ts (types only): every
 *                    layer names it from there, type-only, and never
 *                    imports engine.ts, which only opens engines (its
 *                    values only composition and the doors use). Naming
 *                    the type apart also keeps the files engine.ts imports
 *                    to make the ports (settings/, secrets/, taxauth/) out
 *                    of a circle with it.
 *
 * Outside the layers:
 *   - migrations (store/migrations/) are frozen in time: they import kysely
 *     and node only, each with its own copy of what it needs, so the SQL a
 *     migration runs never changes when live code does.
 *   - the engine never imports an adapter (src/http, src/cli, src/jobs,
 *     src/watch) nor the sandbox, nor fastify, oclif, bree or chokidar.
 *   - src/console (the web console) is a door too; only src/http/app.ts
 *     imports it.
 *   - src/sandbox (the tax authority's stand-in) imports only the formats
 *     it must parse and answer: the foundation's xml/, signing/ and net/
 *     helpers, documents/ (the e-CF's format) and the certification
 *     workbook's format; nothing it imports may lead to the store, the
 *     queue, issuing, submission or the authority's client.
 *   - adapters import an engine area only through its front door,
 *     src/engine/<area>/index.ts, or a root-level engine file.
 */

const LAYERS = [
  ['foundation', '^src/engine/(clock|money|ids|errors|schema-types|validation|json-column|paging|data-dir)[.]ts$|^src/engine/(net|xml|signing)/|^src/engine/log/(logger|request-id)[.]ts$'],
  ['store', '^src/engine/store/(?!migrations/)'],
  ['records', '^src/engine/tenants/lookup[.]ts$|^src/engine/log/state-change[.]ts$'],
  ['settings', '^src/engine/settings/'],
  ['secrets', '^src/engine/secrets/'],
  ['work', '^src/engine/work/'],
  ['events', '^src/engine/events/'],
  ['limits', '^src/engine/limits/'],
  ['tenants', '^src/engine/tenants/(?!lookup[.]ts$)'],
  ['certificates', '^src/engine/certificates/'],
  ['taxauth', '^src/engine/taxauth/'],
  ['documents', '^src/engine/documents/'],
  ['representation', '^src/engine/representation/'],
  ['sequences', '^src/engine/sequences/'],
  ['ecf-records', '^src/engine/ecf/(views|queries|search-key|list-counts|list-counts-postgres|search-postgres|amount-band)[.]ts$'],
  ['submission', '^src/engine/submission/'],
  ['ecf', '^src/engine/ecf/(?!(views|queries|search-key|list-counts|list-counts-postgres|search-postgres|amount-band)[.]ts$)'],
  ['consumers', '^src/engine/(reception|webhooks|health|metrics|setup|certification|retention|export|console-sessions)/'],
  ['composition', '^src/engine/(engine|engine-types|background-work|work-handlers)[.]ts$|^src/engine/backup/'],
];

const COMPOSITION_ROOT = '^src/engine/engine(-types)?[.]ts$';

// The second doors an adapter may import besides an area's index.ts (rule adapters-import-engine-front-doors-only
// below), each named for the sub-area it opens. Listed one by one, not by a pattern: a new second door is a
// choice about what the light commands load, so it is written here on purpose.
const SECOND_DOORS = [
  'ecf/issuing',
  'certification/runs',
  'certification/portal',
  'certification/receiver',
  'reception/receiving',
  'sequences/annulling',
  'sequences/held-ranges',
  'submission/contingency-watch',
  'submission/retrying',
  'store/document-upkeep',
];

// The sandbox's allowance (rule sandbox-imports-the-wire-formats-only below).
const SANDBOX_MAY_IMPORT = [
  '^src/engine/(clock|money|ids|errors|schema-types)[.]ts$',
  '^src/engine/(net|xml|signing)/',
  '^src/engine/documents/',
  '^src/engine/certification/(columns|flatten|workbook|row-document)[.]ts$',
].join('|');
const SANDBOX_NEVER_REACHES =
  '^src/engine/(store|settings|secrets|work|events|limits|tenants|certificates|taxauth|sequences|ecf|submission|reception|webhooks)/|^src/engine/(engine|engine-types|background-work|work-handlers)[.]ts$|^src/(http|cli|jobs|watch|console)/';

function layerRules() {
  const rules = [];
  LAYERS.forEach(([name, path], i) => {
    const above = LAYERS.slice(i + 1).map(([, p]) => `(${p})`).join('|');
    if (!above) return;
    rules.push({
      name: `layer-${name}-imports-no-layer-above`,
      comment: `${name} imports only its own layer and the layers below it (see the layer list at the top of .dependency-cruiser.cjs).`,
      severity: 'error',
      from: { path },
      to: { path: above, pathNot: COMPOSITION_ROOT },
    });
    // The Engine type is every engine function's first parameter and lives in engine-types.ts; engine.ts only opens engines.
    rules.push({
      name: `layer-${name}-names-the-engine-type-from-engine-types`,
      comment: `${name} names the Engine type from engine-types.ts and never imports engine.ts: opening an engine is the composition root's job.`,
      severity: 'error',
      from: { path },
      to: { path: '^src/engine/engine[.]ts$' },
    });
    rules.push({
      name: `layer-${name}-imports-engine-types-as-a-type-only`,
      comment: `${name} may name the Engine type, but runs nothing of the composition root.`,
      severity: 'error',
      from: { path },
      to: { path: COMPOSITION_ROOT, dependencyTypesNot: ['type-only'] },
    });
  });
  return rules;
}

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import circles anywhere in src: a circle has no bottom to read from.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules(),
    {
      name: 'engine-types-imports-types-only',
      comment: 'engine-types.ts is the Engine type that every layer names: it runs nothing, so it imports types only (a value import would pull a layer in under all of them).',
      severity: 'error',
      from: { path: '^src/engine/engine-types[.]ts$' },
      to: { dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'engine-ts-is-imported-to-open-engines-only',
      comment: 'engine.ts opens engines (openEngine, databaseUrlOf); the Engine type and its ports are named from engine-types.ts, so a file that only needs the type never ties itself to the opener (in the doors too).',
      severity: 'error',
      from: {},
      to: { path: '^src/engine/engine[.]ts$', dependencyTypes: ['type-only'] },
    },
    {
      name: 'migrations-import-nothing-from-the-engine',
      comment: 'A migration is frozen in time: it copies what it needs (kysely and node only), so the SQL it runs never follows later code.',
      severity: 'error',
      from: { path: '^src/engine/store/migrations/' },
      to: { path: '^src/', pathNot: '^src/engine/store/migrations/' },
    },
    {
      name: 'engine-imports-no-adapter',
      comment: 'src/engine is the product; the doors (http, cli, jobs, watch) and the sandbox sit on it, never under it.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '^src/(http|cli|jobs|watch|console|sandbox)/' },
    },
    {
      name: 'engine-imports-no-framework',
      comment: 'No fastify, oclif, bree or chokidar under src/engine: those belong to the doors.',
      severity: 'error',
      from: { path: '^src/engine/' },
      to: { path: '(^|/)node_modules/(fastify|@fastify/[^/]+|oclif|@oclif/[^/]+|bree|chokidar)/' },
    },
    {
      name: 'adapters-import-engine-front-doors-only',
      comment:
        "The doors (http, cli, jobs, watch) import an engine area only through src/engine/<area>/index.ts, or one of the area's second doors named for the sub-area it opens (listed in SECOND_DOORS: what loads the pipeline, signing, the XSDs or the keychain, kept apart so light commands stay light), or a root-level engine file (engine.ts, clock.ts, errors.ts, ...): never a file deep in an area.",
      severity: 'error',
      from: { path: '^src/(http|cli|jobs|watch|console)/' },
      to: { path: '^src/engine/[^/]+/', pathNot: `^src/engine/([^/]+/index|${SECOND_DOORS.join('|')})[.]ts$` },
    },
    {
      name: 'sandbox-imports-the-wire-formats-only',
      comment:
        "The sandbox models the tax authority (and, when it plays one, another taxpayer): it shares only the formats it must parse and answer, never the appliance's behaviour, or a test where both sides run the same code could not catch that code being wrong. It may import the foundation's format helpers (clock, money, errors, schema types, net/, xml/ with the XSDs and schema trees, signing/ with the signature verifier), documents/ (the e-CF's own format: payload model, code tables, totals, XML builders, which the playing taxpayer issues with as any taxpayer's software would) and the certification workbook's format (columns, flatten, workbook, row-document: the authority's own test-set sheets). Never the store, settings, secrets, the queue, issuing, sequences, submission, the authority's client, reception or the jobs; what it needs from those it writes itself (src/sandbox/taxpayer-wire.ts).",
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: {
        path: '^src/(engine|http|cli|jobs|watch|console)/',
        pathNot: SANDBOX_MAY_IMPORT,
      },
    },
    {
      name: 'sandbox-reaches-no-appliance-state',
      comment: "What the sandbox may import must not lead, through its own imports, to the appliance's store, queue, settings, secrets, issuing, submission or client either: a format helper that grew such an import would bring the appliance into the authority.",
      severity: 'error',
      from: { path: '^src/sandbox/' },
      to: { path: SANDBOX_NEVER_REACHES, reachable: true },
    },
    {
      name: 'console-is-registered-by-the-http-app-only',
      comment: 'The web console (src/console) is one door, mounted under /console by src/http/app.ts; nothing else reaches into it.',
      severity: 'error',
      from: { pathNot: '^src/(console/|http/app[.]ts$)' },
      to: { path: '^src/console/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: they tie the files together as much as value imports do.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
