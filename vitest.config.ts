import { defaultServerConditions, defineConfig } from 'vite';

// Tests import workspace packages from source through the "@raf/source" export condition,
// so `pnpm test` needs no build step.
export default defineConfig({
  resolve: { conditions: ['@raf/source', ...defaultServerConditions] },
  ssr: { resolve: { conditions: ['@raf/source', ...defaultServerConditions] } },
  test: {
    // CI asks for a JSON report (summed by .ci/run) without changing the README's `pnpm test`.
    reporters: process.env.RAF_TEST_REPORT ? ['default', 'json'] : ['default'],
    ...(process.env.RAF_TEST_REPORT && { outputFile: { json: process.env.RAF_TEST_REPORT } }),
    include: [
      'packages/*/src/**/*.test.ts',
      'examples/*/**/*.test.ts',
      'bench/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    // Type tests (`*.test-d.ts`, `expectTypeOf`) run through tsc with the rest of the suite.
    typecheck: {
      enabled: true,
      include: ['packages/*/src/**/*.test-d.ts'],
      tsconfig: './tsconfig.test-d.json',
    },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
