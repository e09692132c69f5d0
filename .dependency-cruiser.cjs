/**
 * Import-structure check run first by `pnpm test` (`pnpm run cycles`): folders depend on each other one way
 * only, and no module takes part in a cycle that is still there at run time.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment:
        'A folder may import another only if that folder does not import it back (directly or through others). ' +
        'Type-only imports count: they tie the folders together all the same. A subfolder and its parent are one ' +
        'unit here (engine/ops may use engine/context).',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-module-cycle',
      comment:
        'Two modules that import each other at run time make load order matter. A cycle closed only by type ' +
        'imports (a record that names its container type) is erased by the compiler and allowed.',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist)/' },
    tsPreCompilationDeps: true,
  },
};
