import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { type MockModelServer, startMockModelServer } from '../testing/mock-server.js';
import { defaultTieringBudget } from './parser-tier-up.js';

const clientSource = new URL('../index.ts', import.meta.url).href;
// A user's short script: 10 streamed answers of 400 SSE events (one is enough for V8 to optimise undici's parser
// at its default budget), then exit. V8 prints each wasm compile when asked.
const script = `
const { OpenAICompatibleChatClient, delayParserTierUp } = await import(${JSON.stringify(clientSource)});
const { userMessage } = await import('@raf/core');
if (process.argv.includes('opt-in')) delayParserTierUp();
const client = new OpenAICompatibleChatClient({ model: 'm', baseURL: process.argv[1], apiKey: 'k' });
for (let i = 0; i < 10; i++) for await (const _ of client.run([userMessage('hi')]));
if (process.argv.includes('then-another-module')) {
  // Another module compiled after raf's first request (llhttp without SIMD: V8 would reuse the
  // compiled module for the same bytes) must get V8's default budget back.
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.resolve('undici'));
  const env = new Proxy({}, { get: () => () => 0 });
  const mod = new WebAssembly.Module(require('./lib/llhttp/llhttp-wasm.js'));
  const { exports: llhttp } = new WebAssembly.Instance(mod, { env });
  const parser = llhttp.llhttp_alloc(2);
  const body = 'data: {}\\n\\n'.repeat(4000);
  const bytes = Buffer.from('HTTP/1.1 200 OK\\r\\ncontent-length: ' + body.length + '\\r\\n\\r\\n' + body);
  const at = llhttp.malloc(bytes.length);
  for (let i = 0; i < 20; i++) {
    new Uint8Array(llhttp.memory.buffer, at, bytes.length).set(bytes);
    llhttp.llhttp_execute(parser, at, bytes.length);
  }
}
process.exit(0);
`;

function runScript(
  baseURL: string,
  nodeFlags: string[],
  scriptArgs: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<string> {
  const { NODE_OPTIONS: _, RAF_KEEP_WASM_TIERING: __, ...rest } = process.env;
  const env = { ...rest, ...extraEnv };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        ...nodeFlags,
        '--trace-wasm-compilation-times',
        '--conditions=@raf/source',
        '--import',
        import.meta.resolve('tsx'),
        '--input-type=module',
        '-e',
        script,
        baseURL,
        ...scriptArgs,
      ],
      { env, cwd: fileURLToPath(new URL('.', import.meta.url)), maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    );
  });
}

/**
 * Optimising compiles of large functions: llhttp's parse loop is one ~33 KB function whose compile
 * takes ~100 ms. (tsx's loader makes V8 optimise small functions of Node's own CJS lexer too.)
 */
const largeOptimisedCompiles = (trace: string) =>
  trace
    .split('\n')
    .filter((line) => line.includes('using TurboFan') && Number(/bodysize (\d+)/.exec(line)?.[1]) > 10_000);

let server: MockModelServer;
afterEach(async () => {
  await server?.close();
});

describe("undici's parser in a short process", () => {
  it('is left to V8 unless the application asks: a library changes no process-wide flag on its own', async () => {
    server = await startMockModelServer({ turns: () => ({ text: 'word '.repeat(400) }) });
    expect(largeOptimisedCompiles(await runScript(server.baseURL, [])).length).toBeGreaterThan(0);
  }, 60_000);

  it('with delayParserTierUp(), stays on the baseline compiler, so the process does not wait at exit for its optimisation', async () => {
    server = await startMockModelServer({ turns: () => ({ text: 'word '.repeat(400) }) });
    expect(largeOptimisedCompiles(await runScript(server.baseURL, [], ['opt-in']))).toEqual([]);
  }, 60_000);

  it('with delayParserTierUp(), leaves V8 its default budget for WebAssembly compiled afterwards', async () => {
    server = await startMockModelServer({ turns: () => ({ text: 'word '.repeat(400) }) });
    const trace = await runScript(server.baseURL, [], ['opt-in', 'then-another-module']);
    expect(largeOptimisedCompiles(trace).length).toBeGreaterThan(0);
  }, 60_000);

  it.each([
    ['--wasm-tiering-budget on the command line', ['--wasm-tiering-budget=1800000'], {}],
    ['V8 spelling with underscores', ['--wasm_tiering_budget=1800000'], {}],
    ['RAF_KEEP_WASM_TIERING=1', [], { RAF_KEEP_WASM_TIERING: '1' }],
  ])(
    'with delayParserTierUp(), is optimised as V8 decides when the user chose so (%s; the workload is enough)',
    async (_, flags, extraEnv) => {
      server = await startMockModelServer({ turns: () => ({ text: 'word '.repeat(400) }) });
      const trace = await runScript(server.baseURL, flags, ['opt-in'], extraEnv);
      expect(largeOptimisedCompiles(trace).length).toBeGreaterThan(0);
    },
    60_000,
  );

  it("knows V8's default tiering budget of this Node (what it puts back)", async () => {
    const options = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--v8-options'], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
        error ? reject(error) : resolve(stdout),
      ),
    );
    const stated = Number(/default: --wasm-tiering-budget=(\d+)/.exec(options)?.[1]);
    expect(defaultTieringBudget()).toBe(stated);
    expect(defaultTieringBudget('99.1.0')).toBeUndefined();
  });
});
