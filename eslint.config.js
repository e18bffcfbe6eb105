import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import prettier from 'eslint-config-prettier';
import { importResolverSettings, importRuleConfigs, jidRuleConfigs } from './eslint-import-rules.js';

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      '.tools/**',
      '.data/**',
      'coverage/**',
      '.bench-dist/**',
      'bin/**',
      'scripts/**/*.mjs',
      // Plain CommonJS the SDK requires by path (its header says why); no TypeScript project covers it.
      'workflows/failure-converter.cjs',
      'eslint.config.js',
      'eslint-import-rules.js',
      'eslint-import-rules.d.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { 'import-x': importX },
    settings: importResolverSettings,
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'import-x/no-cycle': 'error',
      'import-x/order': ['warn', { 'newlines-between': 'never' }],
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read env only in config.ts / main.ts (house style §5).' },
      ],
    },
  },
  {
    files: ['**/config.ts', '**/main.ts', 'cli/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'vitest.config.ts'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/explicit-module-boundary-types': 'off', '@typescript-eslint/unbound-method': 'off' },
  },
  // Which folder may import which, and what workflow code may not import.
  ...importRuleConfigs,
  // JID rules live in common/whatsapp-jid.ts only (ADR 0021).
  ...jidRuleConfigs,
  prettier
);
