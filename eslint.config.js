import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '.odp/**', 'bench-results/**', '**/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'import-x/no-default-export': 'error',
      'import-x/no-cycle': 'error',
    },
  },
  {
    // Layering: apps depend on packages, never on another app (nor packages on an app).
    files: ['apps/**/*.ts', 'packages/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@odp/api',
                '@odp/api/*',
                '@odp/worker',
                '@odp/worker/*',
                '@odp/admin-cli',
                '@odp/admin-cli/*',
              ],
              message: 'An app is imported by no app or package: move what both need into a package.',
            },
            { group: ['**/apps/*'], message: 'An app is imported by no app or package.' },
          ],
        },
      ],
    },
  },
  {
    // Room sizes: a source file holds one concern (at most 500 lines), a function one step (at most
    // 120). Every physical line counts, blank lines and comments included, so the limits read the
    // same as `wc -l` and a file cannot grow past them on comments. Tests (`*.test.ts`) are exempt;
    // the contract suites of @odp/testkit are not: they are library code the adapters' tests run.
    files: ['packages/*/src/**/*.ts', 'apps/*/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': [
        'error',
        { max: 120, skipBlankLines: false, skipComments: false, IIFEs: true },
      ],
    },
  },
);
