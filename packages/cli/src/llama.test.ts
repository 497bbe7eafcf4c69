import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type MockModelServer, type RecordedRequest, startMockModelServer } from '@raf/client/testing';
import { tinyModelBytes } from '@raf/llama/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO as memoryIO } from './memory-io.js';

let dir: string;
let server: MockModelServer | undefined;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-llama-')));
  await writeFile(join(dir, 'tiny.gguf'), tinyModelBytes());
  await writeFile(join(dir, 'broken.gguf'), tinyModelBytes().subarray(0, 50_000));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const isCurator = (r: RecordedRequest) =>
  ((r.body?.messages ?? []) as { content: string }[])[0]?.content.includes('# Memory curator') ?? false;

async function memoryAgent(modelFile: string): Promise<void> {
  await writeFile(
    join(dir, 'agent.yaml'),
    [
      'name: remembering',
      `model: { id: m, provider: custom, connection: { endpoint: "${server!.baseURL}" } }`,
      'contexts:',
      '  - kind: memory',
      '    config:',
      '      consolidationInterval: 1',
      `      memoryModel: { provider: llama, modelPath: ${modelFile}, maxTokens: 16 }`,
      '',
    ].join('\n'),
  );
}

describe('raf with @raf/llama installed', () => {
  it('run: the memoryModel curator runs on the local GGUF model, not on the agent model', async () => {
    server = await startMockModelServer({ turns: () => ({ text: 'noted' }) });
    await memoryAgent('tiny.gguf');
    const run = memoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', 'I like tea'], run.io), run.err()).toBe(0);
    expect(run.out()).toBe('noted\n');
    expect(run.err()).toBe('');
    // The consolidation ran (its gibberish answer changes no page) and logged itself.
    expect(await readFile(join(dir, 'logs/super-brain/log.md'), 'utf8')).toMatch(
      /\| [0-9a-f-]{36} \| ok \|\n$/,
    );
    expect(server.requests.filter(isCurator)).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
  });

  it('run: a model file that does not load is a warning, and the agent model curates', async () => {
    server = await startMockModelServer({
      turns: (request) => (isCurator(request) ? { text: 'UPDATED:\n(nothing)' } : { text: 'noted' }),
    });
    await memoryAgent('broken.gguf');
    const run = memoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', 'I like tea'], run.io), run.err()).toBe(0);
    expect(run.out()).toBe('noted\n');
    expect(server.requests.filter(isCurator).length).toBeGreaterThan(0);
    // `raf run` does not print build warnings; `raf validate` shows why.
    const validate = memoryIO({ cwd: dir });
    expect(await main(['validate', 'agent.yaml'], validate.io), validate.err()).toBe(0);
    expect(validate.err()).toMatch(
      /^warning: .*agent\.yaml:4:5 contexts\[0\]: memoryModel: cannot load the model .*broken\.gguf: the file is cut short: .*; the curator uses the agent's model\n$/,
    );
  });

  it('run and inspect an agent whose own model is a local GGUF file', async () => {
    await writeFile(
      join(dir, 'local.yaml'),
      'name: local\nmodel: { provider: llama, id: tiny, connection: { endpoint: tiny.gguf }, options: { maxOutputTokens: 8 }, config: { threads: 1 } }\n',
    );
    const inspect = memoryIO({ cwd: dir });
    expect(await main(['inspect', 'local.yaml', '--json'], inspect.io), inspect.err()).toBe(0);
    expect(inspect.lines()[0]).toMatchObject({ model: { provider: 'llama', id: 'tiny' } });
    const run = memoryIO({ cwd: dir });
    expect(await main(['run', 'local.yaml', '-i', 'hello'], run.io), run.err()).toBe(0);
    expect(run.out().trim().length).toBeGreaterThan(0);
  });
});
