import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

const quickstart = fileURLToPath(new URL('../../../examples/quickstart', import.meta.url));
let dir: string;
beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'raf-trace-')), 'quickstart');
  await cp(quickstart, dir, { recursive: true, filter: (src) => !src.includes('node_modules') });
});
afterEach(() => rm(join(dir, '..'), { recursive: true, force: true }));

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number };
}

/** The spans as an indented tree, children in start order. */
function tree(spans: OtlpSpan[]): string[] {
  const lines: string[] = [];
  const ordered = [...spans].sort((a, b) =>
    BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1,
  );
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of ordered.filter((s) => (s.parentSpanId || undefined) === parent)) {
      lines.push(`${'  '.repeat(depth)}${span.name}`);
      walk(span.spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

function attribute(span: OtlpSpan, key: string): unknown {
  const value = span.attributes.find((a) => a.key === key)?.value;
  if (!value) return undefined;
  if ('arrayValue' in value)
    return (value.arrayValue as { values: Record<string, unknown>[] }).values.map((v) => Object.values(v)[0]);
  return Object.values(value)[0];
}

describe('raf run --trace', () => {
  it('writes the quickstart as OTLP JSON spans: run → model calls and tool calls', async () => {
    const run = createMemoryIO({ cwd: dir });
    const code = await main(
      [
        'run',
        'agent.yaml',
        '-i',
        'Summarise my todo list into summary.md',
        '--approve',
        'all',
        '--trace',
        'trace.json',
      ],
      run.io,
    );
    expect(code, run.err()).toBe(0);
    const otlp = JSON.parse(await readFile(join(dir, 'trace.json'), 'utf8')) as {
      resourceSpans: {
        resource: { attributes: OtlpSpan['attributes'] };
        scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[];
      }[];
    };
    const [resource] = otlp.resourceSpans;
    expect(resource?.resource.attributes).toContainEqual({
      key: 'service.name',
      value: { stringValue: 'raf' },
    });
    expect(resource?.scopeSpans.map((s) => s.scope.name)).toEqual(['@raf/framework']);
    const spans = resource?.scopeSpans[0]?.spans ?? [];
    // The run pauses for run_command's approval and resumes (--approve all): two agent runs.
    expect(tree(spans)).toEqual([
      'invoke_agent quickstart',
      '  chat gpt-4o-mini',
      '  execute_tool read_file',
      '  chat gpt-4o-mini',
      'invoke_agent quickstart',
      '  execute_tool run_command',
      '  chat gpt-4o-mini',
      '  execute_tool write_file',
      '  chat gpt-4o-mini',
    ]);
    const [firstRun, firstChat, readFile_] = [...spans].sort((a, b) =>
      BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1,
    );
    expect(attribute(firstRun!, 'gen_ai.operation.name')).toBe('invoke_agent');
    expect(attribute(firstRun!, 'gen_ai.agent.name')).toBe('quickstart');
    expect(attribute(firstRun!, 'gen_ai.response.finish_reasons')).toEqual(['awaiting_approval']);
    expect(attribute(firstChat!, 'gen_ai.operation.name')).toBe('chat');
    expect(attribute(firstChat!, 'gen_ai.request.model')).toBe('gpt-4o-mini');
    expect(attribute(firstChat!, 'gen_ai.response.finish_reasons')).toEqual(['tool_calls']);
    expect(attribute(readFile_!, 'gen_ai.tool.name')).toBe('read_file');
    expect(attribute(readFile_!, 'gen_ai.tool.call.id')).toEqual(expect.any(String));
    // Tool arguments and results stay out of the trace unless recordContent is on.
    expect(spans.some((s) => s.attributes.some((a) => a.key.startsWith('gen_ai.tool.call.arguments')))).toBe(
      false,
    );
    // One trace per run, every span in its run's trace.
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(2);
  });

  it('registers no tracer and writes nothing without --trace', async () => {
    const run = createMemoryIO({ cwd: dir });
    expect(
      await main(['run', 'agent.yaml', '-i', 'Summarise my todo list', '--approve', 'all'], run.io),
    ).toBe(0);
    await expect(readFile(join(dir, 'trace.json'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a --trace path it cannot write before the run, with exit 2 and no stack', async () => {
    for (const [target, message] of [
      [
        'no-such-folder/trace.json',
        'raf: --trace no-such-folder/trace.json: the folder no-such-folder does not exist\n',
      ],
      ['.', 'raf: --trace .: is a folder; give a file name such as trace.json\n'],
    ] as const) {
      const run = createMemoryIO({ cwd: dir });
      expect(
        await main(['run', 'agent.yaml', '-i', 'x', '--approve', 'all', '--trace', target], run.io),
      ).toBe(2);
      expect(run.err()).toBe(message);
      expect(run.out()).toBe('');
    }
  });

  it("a trace that cannot be written after a failed run is said beside the run's own failure, which sets the exit code", async () => {
    const server = await startMockModelServer({
      turns: [{ status: 400, errorBody: { error: { message: 'bad request' } }, delayMs: 600 }],
    });
    try {
      await writeFile(
        join(dir, 'fails.yaml'),
        `name: f\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\n`,
      );
      await mkdir(join(dir, 'out'));
      const run = createMemoryIO({ cwd: dir });
      const exit = main(['run', 'fails.yaml', '-i', 'x', '--trace', 'out/trace.json'], run.io);
      // The folder goes away while the model is answering: the write at the end fails.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await rm(join(dir, 'out'), { recursive: true });
      expect(await exit).toBe(4);
      expect(run.err()).toMatch(/bad request/);
      expect(run.err()).toMatch(/raf: --trace out\/trace\.json: cannot write it: /);
    } finally {
      await server.close();
    }
  });
});
