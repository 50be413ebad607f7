import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import importPlugin from 'eslint-plugin-import'
import { readdirSync } from 'node:fs'

// One zone per feature: a feature never imports from another feature, and
// shared code never imports features or the app (code flows shared → features → app).
const features = readdirSync(new URL('./src/features', import.meta.url))
const featureZones = features.map((f) => ({
  target: `./src/features/${f}`,
  from: './src/features',
  except: [`./${f}`],
}))

export default tseslint.config(
  { ignores: ['dist', 'node_modules', 'dev-dist'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    plugins: { 'react-hooks': reactHooks, import: importPlugin },
    settings: { 'import/resolver': { typescript: { project: './tsconfig.app.json' } } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-hooks/set-state-in-effect': 'off',
      'import/no-restricted-paths': [
        'error',
        {
          zones: [
            ...featureZones,
            { target: './src/features', from: './src/app' },
            {
              target: ['./src/components', './src/hooks', './src/lib', './src/types', './src/config', './src/stores'],
              from: ['./src/features', './src/app'],
            },
          ],
        },
      ],
    },
  },
)
