// Redocly plugin used by `redocly bundle` (see redocly.yaml and scripts/generate.ts).
//
// The standalone JSON Schemas (schemas/*.schema.json) are listed as components by
// their file, and each of their `$defs` as a component of its own, so the bundle
// refers to `#/components/schemas/MenuImportDish`, never into a `$defs`. The
// inlined file still carries its `$defs` (a dead copy that code generators take
// for a property) and its `$schema` (which only a schema resource's root may
// carry): drop both from the components.
module.exports = function standaloneSchemasPlugin() {
  return {
    id: 'restoapi',
    decorators: {
      oas3: {
        'standalone-schemas': () => ({
          Components: {
            leave(components) {
              for (const schema of Object.values(components.schemas ?? {})) {
                delete schema.$defs;
                delete schema.$schema;
              }
            },
          },
        }),
      },
    },
  };
};
