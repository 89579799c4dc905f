// Lint rules: typescript-eslint's recommended set plus the type-aware promise rules, which
// catch the bug this code base can least afford (a write whose failure is never awaited).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'build/**', 'node_modules/**', 'data/**', '.tmp/**', 'test/artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        // node:test runs describe/it itself; their promises are not ours to await.
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // better-sqlite3's native objects must never be garbage collected: on Node 24.19+ collecting
    // one outside JavaScript aborts the process (src/db/open-database.ts, `connections`). These
    // calls create throwaway ones; use exec, preparedFor and connect() instead.
    files: ['src/**/*.ts'],
    ignores: ['src/db/open-database.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        { property: 'pragma', message: 'db.pragma() prepares a throwaway statement: use db.exec() or a statement from preparedFor().' },
        { property: 'iterate', message: 'iterate() makes a throwaway iterator object: use all().' },
      ],
      'no-restricted-syntax': [
        'error',
        { selector: "NewExpression[callee.name='Database']", message: 'Open connections with connect() or openDatabase(), which keep them reachable.' },
      ],
    },
  },
  {
    // Tests read JSON responses whose shape each assertion states.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: globals.node } },
);
