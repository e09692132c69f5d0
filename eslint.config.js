// One lint configuration for the whole workspace: typescript-eslint's recommended rules without type information
// (a lint run stays a few seconds), plus the unused-code checks the former `tsc --noUnused*` pass gave.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/*.generated.*', '**/generated/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { args: 'after-used', argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests, the shared suites and benchmarks read untyped wire JSON and deliberately odd values (e.g. numbers
    // beyond 2^53).
    files: ['**/test/**', '**/bench/**', '**/*.test.ts', 'packages/contract/src/**', 'apps/gateway/scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-loss-of-precision': 'off' },
  },
  {
    // The CommonJS consumer of the packed packages (scripts/consumer): `require` is what it tests.
    files: ['**/*.cjs', '**/*.cts'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
