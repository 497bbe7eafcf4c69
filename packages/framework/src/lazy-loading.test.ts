import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('./test-support/plain-run-process.ts', import.meta.url));

// The libraries of subsystems a plain run does not use; each loads on its subsystem's first use.
const SUBSYSTEMS = [
  '@opentelemetry/api', // tracing: only with a registered tracer provider or a given tracer
  'yaml', // SKILL.md and memory pages
  'minisearch', // memory_recall
  '@cfworker/json-schema', // tools that come with a JSON Schema only
  'picomatch', // find_files and search_file
  'diff', // apply_patch
];
// Code that runs only in a sub-agent's worker process, or only for `kind: workflow` files.
const ELSEWHERE = ['/sub-agents/sub-agent-worker.', '/packages/workflow/', '/node_modules/@raf/workflow/'];
// Node's own modules that only some subsystems use (`lazy-builtins.ts`).
const BUILTINS = ['node:child_process', 'node:worker_threads'];

describe('a fresh process', () => {
  it('loads no library of a subsystem it does not use, at import or in a plain tool run', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@raf/source', '--import', 'tsx', script],
      { timeout: 60_000 },
    );
    const { finish, imported, afterRun } = JSON.parse(stdout) as {
      finish: string;
      imported: string[];
      afterRun: string[];
    };
    expect(finish).toBe('stop');
    const libraries = (files: string[]) =>
      SUBSYSTEMS.filter((name) => files.some((file) => file.includes(`/node_modules/${name}/`)));
    expect(libraries(imported)).toEqual([]);
    expect(libraries(afterRun)).toEqual([]);
    expect(ELSEWHERE.filter((part) => afterRun.some((file) => file.includes(part)))).toEqual([]);
    expect(BUILTINS.filter((name) => afterRun.includes(name))).toEqual([]);
  }, 70_000);
});
