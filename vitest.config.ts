import { availableParallelism } from 'node:os';
import { defaultServerConditions, defineConfig } from 'vite';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The longest files (kill loops, child processes, a browser, the bench smoke test) start first, so
// that no worker ends the run alone on one of them. Order only: a file missing here costs time,
// never a test.
const LONG_FIRST = [
  'bench/bench.test.ts',
  'packages/framework/src/memory/crash.test.ts',
  'test/package-contents.test.ts',
  'packages/framework/src/workspace/write-tools-races.test.ts',
  'packages/workflow/src/checkpoint/crash.test.ts',
  'packages/cli/src/studio/studio-browser.test.ts',
  'packages/mcp/src/connection/reconnect.test.ts',
  'packages/framework/src/sub-agents/worker.test.ts',
  'packages/cli/src/memory-processes.test.ts',
];

class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const index = LONG_FIRST.findIndex((name) => spec.moduleId.endsWith(`/${name}`));
      return index === -1 ? LONG_FIRST.length : index;
    };
    // Array sort is stable: the other files keep vitest's order (largest, or slowest last time, first).
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

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
    // Vitest's default (cores - 1) is one worker on a 2-core machine, which leaves a core idle:
    // most files spend their time waiting on child processes, servers and timers.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongFirst },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
