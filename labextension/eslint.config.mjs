// ESLint for the labextension, after JupyterLab's own configuration (jupyterlab/jupyterlab
// and its extension template) and jupyterlab-git's: @typescript-eslint's recommended rules
// with type information (each file is linted with the TypeScript program of its tsconfig:
// tsconfig.json for src/, tsconfig.test.json for the *.spec.ts beside each unit and
// test/), the I-prefix for interfaces, and eslint-config-prettier so that formatting is
// Prettier's job alone. Every rule turned off or down says why.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'lib/', 'test-lib/', 'src/generated/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.json', './tsconfig.test.json'],
        tsconfigRootDir: import.meta.dirname
      }
    }
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        {
          selector: 'interface',
          format: ['PascalCase'],
          custom: { regex: '^I[A-Z]', match: true }
        }
      ],
      // Arguments a callback must accept but does not use (Lumino's `sender`) are kept.
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none' }],
      // Off: Lumino signals take a method and its `this` apart (`signal.connect(this._onX,
      // this)`), which binds it; the rule cannot see the second argument.
      '@typescript-eslint/unbound-method': 'off',
      // Off: JupyterLab's convention keeps command ids in a `CommandIDs` namespace.
      '@typescript-eslint/no-namespace': 'off',
      curly: ['error', 'all'],
      eqeqeq: 'error',
      'prefer-arrow-callback': 'error'
    }
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: {
      // node:test's `test()` returns a promise the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', name: 'test', package: 'node:test' }
          ]
        }
      ],
      // Off in tests: they build broken and hostile records out of JSON fixtures on
      // purpose (JSON.parse gives `any`; a field of the wrong type is the point), which
      // the wire types would forbid.
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off'
    }
  },
  {
    // Plain JavaScript (the build scripts, this file): no TypeScript program to ask.
    files: ['**/*.mjs', '**/*.js'],
    ...tseslint.configs.disableTypeChecked
  },
  {
    files: ['scripts/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } }
  }
);
