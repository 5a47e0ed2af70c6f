import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '*.js', '*.mjs'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    // class-validator's IsOptional lets null through; request DTOs use IsOptionalNotNull.
    files: ['src/**/dto/**/*.ts', 'src/common/http/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'class-validator',
              importNames: ['IsOptional'],
              message: 'Use IsOptionalNotNull (src/common/http/validation.decorators.ts): IsOptional accepts null.',
            },
          ],
        },
      ],
    },
  },
  { files: ['test/**/*.ts', 'bench/**/*.ts', 'src/cli/**/*.ts', '**/*.spec.ts'], rules: { 'no-console': 'off' } },
);
