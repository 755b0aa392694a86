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
);
