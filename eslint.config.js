// Lint rules: typescript-eslint's recommended set plus the type-aware promise rules, which
// catch the bug this code base can least afford (a write whose failure is never awaited).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** No front end appends audit events: a use case declares what it records (src/domain/use-case.ts). */
const AUDIT_APPENDS = {
  group: ['**/audit/record-audit.js'],
  importNames: ['appendAuditEvents', 'perDistinctPatient'],
  message: 'a use case declares its audit (and `recorded`); the desk and the routes append no events themselves',
};

/** The desk reaches the clinic's data through use cases: from src/db it imports types only, but in its infrastructure. */
const DB_VALUES = {
  group: ['**/db/*'],
  allowTypeImports: true,
  message: 'a desk command runs a use case (runUseCaseCommand); only the infrastructure commands use src/db',
};

/** The desk's infrastructure: the data directory, its database file and the process itself, not the clinic's data. */
const DESK_INFRASTRUCTURE = ['src/cli/database.ts', 'src/cli/commands/{init,serve,backup,check,autostart,tls,version}.ts'];

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
    files: ['src/cli/**/*.ts', 'src/server/routes/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [AUDIT_APPENDS] }] },
  },
  {
    files: ['src/cli/**/*.ts'],
    ignores: DESK_INFRASTRUCTURE,
    rules: { '@typescript-eslint/no-restricted-imports': ['error', { patterns: [AUDIT_APPENDS, DB_VALUES] }] },
  },
  {
    // Tests read JSON responses whose shape each assertion states.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  { files: ['**/*.js', '**/*.mjs'], ...tseslint.configs.disableTypeChecked },
  { files: ['**/*.js', '**/*.mjs'], languageOptions: { globals: globals.node } },
);
