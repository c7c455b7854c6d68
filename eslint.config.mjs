import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from './scripts/eslint-globals.mjs';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'examples/**/node_modules/', '.cache/', 'bench/results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
