// The import graph's rules (`npm run lint` runs them): no import circles anywhere, and the packages only point
// down their layers: openapi → sdk → mock-server / carrier-kit → contract-tests → examples, docs.
// Tests, type tests and benchmarks may use any package as a double (the SDK's tests run against the mock).

/** Files that are not shipped code: tests, type tests, test support and benchmarks. */
const NOT_SHIPPED = ['\\.test\\.ts$', '\\.test-d\\.ts$', '^[^/]+/(test|bench)/', '^packages/[^/]+/(test|bench)/'];

/** A layer's shipped files may import only the packages below it. */
function layer(name, from, mayNotUse) {
  return {
    name,
    severity: 'error',
    comment: `${from} may import only the layers below it`,
    from: { path: from, pathNot: NOT_SHIPPED },
    to: { path: mayNotUse },
  };
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle (type-only imports count): split the module or move the shared part down.',
      from: {},
      to: { circular: true },
    },
    layer('openapi-is-the-bottom', '^openapi/', '^(packages|contract-tests|examples|docs)/'),
    layer(
      'sdk-uses-openapi-only',
      '^packages/sdk/',
      '^(packages/(mock-server|carrier-kit)|contract-tests|examples|docs)/',
    ),
    // Inside the SDK: the clients (client/, carrier/, raw/) build on the resources, which build on the transport
    // (transport/: core, transport, pipeline), which builds on resilience/ and errors/.
    layer(
      'sdk-transport-below-resources',
      '^packages/sdk/src/(transport|resilience|errors)/',
      '^packages/sdk/src/(client|carrier|raw|resources|pagination|uploads)/',
    ),
    layer('sdk-resources-below-clients', '^packages/sdk/src/resources/', '^packages/sdk/src/(client|carrier|raw)/'),
    layer(
      'carrier-kit-uses-openapi-and-sdk',
      '^packages/carrier-kit/',
      '^(packages/mock-server|contract-tests|examples|docs)/',
    ),
    layer('contract-tests-below-examples', '^contract-tests/', '^(examples|docs)/'),
    // The mock takes the API's types from @restoapi/openapi, never from the SDK.
    layer(
      'mock-server-uses-openapi',
      '^packages/mock-server/',
      '^(packages/sdk|packages/carrier-kit|contract-tests|examples|docs)/',
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)node_modules/', '(^|/)dist/', '^docs/dist/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
