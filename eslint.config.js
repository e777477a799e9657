// One lint setup for the whole monorepo; packages add nothing of their own.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', '**/generated/**', '**/coverage/**', 'reports/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // The mock's console page and the docs site's scripts run in the browser, not in Node.
    files: ['packages/mock-server/console/**/*.js', 'docs/assets/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
