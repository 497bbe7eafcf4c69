import { availableParallelism } from 'node:os';
import { defaultServerConditions, defineConfig } from 'vite';
import { configDefaults } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The longest files (kill loops, child processes, a browser, the bench smoke test) start first, so
// that no worker ends the run alone on one of them. Order only: a file missing here costs time,
// never a test.
const LONG_FIRST = [
  'bench/bench.test.ts',
  'packages/framework/src/memory/crash.test.ts',
  'packages/postgres/src/store-crash.test.ts',
  'packages/dbos/src/durable-crash.test.ts',
  'packages/cli/src/durable.test.ts',
  'packages/cli/src/durable-delegation.test.ts',
  'packages/cli/src/serve-durable.test.ts',
  'packages/cli/src/durable-workflow-pause.test.ts',
  'packages/cli/src/durable-delegation-limits.test.ts',
  'packages/cli/src/durable-subagent-approval.test.ts',
  'packages/dbos/src/durable-workflow-pause.test.ts',
  'packages/dbos/src/durable-workflow.test.ts',
  'packages/cli/src/durable-approve-recovery.test.ts',
  'packages/dbos/src/answer-parked.test.ts',
  'packages/cli/src/durable-delegation-clock.test.ts',
  'test/package-contents.test.ts',
  'packages/framework/src/workspace/write-tools-races.test.ts',
  'packages/workflow/src/checkpoint/crash.test.ts',
  'packages/workflow/src/checkpoint/superstep-crash.test.ts',
  'packages/mcp/src/connection/reconnect.test.ts',
  'packages/framework/src/sub-agents/worker.test.ts',
  'packages/cli/src/memory-processes.test.ts',
];

// Files that assert a wall-clock bound (an abort that ends a call within 1-2 s, the studio's first
// render within 1 s, a search within 5 s) or keep a core busy (a process flipping a folder in a
// loop) run after the others, one at a time: next to another test file on 2 cores, such a bound
// would measure the neighbour.
const ONE_AT_A_TIME = [
  'packages/cli/src/approval-prompt.test.ts',
  'packages/cli/src/studio/studio-browser.test.ts',
  'packages/client/src/protocol-parity.test.ts',
  'packages/client/src/stream/read-stream.test.ts',
  'packages/framework/src/agent/cancellation.test.ts',
  'packages/framework/src/builtin-tools/run-command-sandbox.test.ts',
  'packages/framework/src/builtin-tools/run-command.test.ts',
  'packages/framework/src/pipeline/tool-timeout.test.ts',
  'packages/framework/src/workspace/operations/search-bounds.test.ts',
  'packages/framework/src/workspace/search-races.test.ts',
  'packages/mcp/src/connection/server-everything.test.ts',
  'packages/sandbox/src/js/javascript.test.ts',
  'packages/sandbox/src/process/hostile-code.test.ts',
  'packages/web/src/fetch/convert.test.ts',
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
// Without vite's `module` condition: packages load as Node loads them (@opentelemetry/api 1.9's
// `module` build has extensionless imports that only a bundler resolves).
const conditions = ['@raf/source', ...defaultServerConditions.filter((c) => c !== 'module')];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    // CI asks for a JSON report (summed by .ci/run) without changing the README's `pnpm test`.
    reporters: process.env.RAF_TEST_REPORT ? ['default', 'json'] : ['default'],
    ...(process.env.RAF_TEST_REPORT && { outputFile: { json: process.env.RAF_TEST_REPORT } }),
    // Vitest's default (cores - 1) is one worker on a 2-core machine, which leaves a core idle:
    // most files spend their time waiting on child processes, servers and timers.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    sequence: { sequencer: LongFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: [
            'packages/*/src/**/*.test.ts',
            'examples/*/**/*.test.ts',
            'bench/**/*.test.ts',
            'test/**/*.test.ts',
          ],
          exclude: [
            ...configDefaults.exclude,
            ...ONE_AT_A_TIME,
            // Packs, installs from the npm registry and runs three Node versions: a step of its own
            // in .ci/run, not part of `pnpm test`.
            ...(process.env.RAF_CONSUMER_TEST === '1' ? [] : ['test/consumer.test.ts']),
          ],
          // Type tests (`*.test-d.ts`, `expectTypeOf`) run through tsc with the rest of the suite.
          typecheck: {
            enabled: true,
            include: ['packages/*/src/**/*.test-d.ts'],
            tsconfig: './tsconfig.test-d.json',
          },
        },
      },
      // A project with one worker runs after all the others (vitest's sequential group).
      { extends: true, test: { name: 'one-at-a-time', include: ONE_AT_A_TIME, maxWorkers: 1 } },
    ],
    // Install hints name the user's package manager (`npm_config_user_agent`, as npm, pnpm, yarn
    // and bun set it); the tests' expectations are this repository's (pnpm), however vitest started.
    env: { npm_config_user_agent: 'pnpm/12.4.2' },
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
