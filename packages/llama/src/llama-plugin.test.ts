import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentResponseUpdate, IChatClient } from '@raf/core';
import { DeclAgentBuilder, formatDiagnostic } from '@raf/decl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LlamaChatClient } from './client/llama-chat-client.js';
import { llamaPlugin } from './llama-plugin.js';
import { loadedModelCount } from './model/model-cache.js';
import { tinyModelBytes } from './testing/tiny-model.js';

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-llama-plugin-')));
  await mkdir(join(dir, 'models'));
  await writeFile(join(dir, 'models', 'tiny.gguf'), tinyModelBytes());
  await writeFile(join(dir, 'models', 'broken.gguf'), tinyModelBytes().subarray(0, 4096));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function agentFile(name: string, body: string): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, `name: ${name}\n${body}`);
  return file;
}

const relative = (lines: string[]) => lines.map((line) => line.replaceAll(`${dir}/`, ''));

async function collect(stream: AsyncIterable<AgentResponseUpdate>): Promise<AgentResponseUpdate[]> {
  const updates: AgentResponseUpdate[] = [];
  for await (const update of stream) updates.push(update);
  return updates;
}

describe('llamaPlugin', () => {
  it('registers the providers llama, gguf, local and lm', () => {
    expect(Object.keys(llamaPlugin().modelProviders ?? {})).toEqual(['llama', 'gguf', 'local', 'lm']);
  });

  it('runs a whole agent on a local model: the file in connection.endpoint, relative to the YAML', async () => {
    const file = await agentFile(
      'local-agent',
      [
        'model:',
        '  provider: llama',
        '  id: tiny',
        '  connection: { endpoint: models/tiny.gguf }',
        '  options: { maxOutputTokens: 6, temperature: 0 }',
        '  config: { threads: 1 }',
        'instructions: You keep notes.',
        '',
      ].join('\n'),
    );
    const plugin = llamaPlugin();
    const agent = await new DeclAgentBuilder().fromYamlFile(file).use(plugin).build();
    expect(loadedModelCount()).toBe(1);
    const updates = await collect(agent.run('Remember that I like tea.'));
    const text = updates.filter((u) => u.type === 'text-delta');
    expect(text.length).toBeGreaterThan(1);
    expect(updates.at(-1)).toMatchObject({
      type: 'finish',
      reason: 'length',
      usage: { completionTokens: 6 },
    });
    await plugin.close();
    expect(loadedModelCount()).toBe(0);
  });

  it('the model file is a protected path: readable, never written by the file tools (SPEC §9)', async () => {
    const file = await agentFile(
      'protected-model',
      [
        'model: { provider: llama, id: tiny, connection: { endpoint: models/tiny.gguf } }',
        'contexts:',
        '  - { kind: workspace, name: here, config: { root: ., policy: deny } }',
        'tools:',
        '  - kind: file',
        '',
      ].join('\n'),
    );
    const plan = await new DeclAgentBuilder().fromYamlFile(file).use(llamaPlugin()).explain();
    const rules = plan.contexts.find((c) => c.kind === 'workspace')?.protectedPaths ?? [];
    expect(rules).toContainEqual({
      path: join(dir, 'models', 'tiny.gguf'),
      reason: 'local model file',
      reads: 'allowed',
      writes: 'refused',
    });
  });

  it('takes the file and the hardware settings from model.config too, in either spelling', async () => {
    const file = await agentFile(
      'configured',
      'model: { provider: gguf, id: notes, config: { model_path: models/tiny.gguf, context_size: 256, threads: 1, use_gpu: false } }\n',
    );
    const plugin = llamaPlugin();
    const agent = await new DeclAgentBuilder().fromYamlFile(file).use(plugin).build();
    const client = agent.chatClient as IChatClient;
    let leaf: IChatClient = client;
    while (leaf.innerClient) leaf = leaf.innerClient;
    expect(leaf).toMatchObject({
      modelId: 'notes',
      provider: 'gguf',
      modelPath: join(dir, 'models/tiny.gguf'),
      modelMetadata: { contextWindowTokens: 256 },
    });
    await plugin.close();
  });

  it('validate loads nothing and reports a missing, broken or ambiguous model file at the model', async () => {
    const plugin = llamaPlugin();
    const validate = async (model: string) => {
      const file = await agentFile('check', `model: ${model}\n`);
      const report = await new DeclAgentBuilder().fromYamlFile(file).use(plugin).validate();
      return relative(report.errors.map(formatDiagnostic));
    };
    expect(await validate('{ provider: llama, id: t, connection: { endpoint: models/tiny.gguf } }')).toEqual(
      [],
    );
    expect(loadedModelCount()).toBe(0);
    expect(await validate('{ provider: llama, id: t, connection: { endpoint: models/none.gguf } }')).toEqual([
      'check.yaml:2:8 model: cannot load the model models/none.gguf: no such file',
    ]);
    expect(await validate('{ provider: lm, id: t, config: { path: models/broken.gguf } }')).toEqual([
      expect.stringMatching(/^check\.yaml:2:8 model: cannot load the model models\/broken\.gguf: .+/),
    ]);
    expect(await validate('{ provider: local, id: t }')).toEqual([
      'check.yaml:2:8 model: provider "local" needs a .gguf model file: model.connection.endpoint or model.config.modelPath (relative to the agent file)',
    ]);
    expect(
      await validate(
        '{ provider: llama, id: t, connection: { endpoint: a.gguf }, config: { modelPath: b.gguf } }',
      ),
    ).toEqual([
      'check.yaml:2:8 model: provider "llama" has two model files: config.modelPath b.gguf and connection.endpoint a.gguf; keep one',
    ]);
    expect(
      await validate('{ provider: llama, id: t, config: { modelPath: models/tiny.gguf, useGpu: maybe } }'),
    ).toEqual([expect.stringMatching(/^check\.yaml:2:8 model: config\.useGpu: /)]);
    expect(loadedModelCount()).toBe(0);
  });
});

describe('super-brain memoryModel through @raf/llama', () => {
  const MAIN = 'model: { id: main, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }';
  const curatorOf = async (file: string, plugin = llamaPlugin()) => {
    const builder = new DeclAgentBuilder().fromYamlFile(file).use(plugin);
    const agent = await builder.build();
    const memory = agent.contextProviders.find((p) => p.kind === 'memory') as unknown as {
      curator: IChatClient;
    };
    return { curator: memory.curator, main: agent.chatClient, warnings: await builder.validate() };
  };

  it('the curator runs on the local model, which answers', async () => {
    const file = await agentFile(
      'remember',
      `${MAIN}\ncontexts:\n  - kind: memory\n    config:\n      memoryModel: { provider: llama, modelPath: models/tiny.gguf, id: curator, maxTokens: 5 }\n`,
    );
    const plugin = llamaPlugin();
    const { curator } = await curatorOf(file, plugin);
    expect(curator).toMatchObject({
      modelId: 'curator',
      provider: 'llama',
      modelPath: join(dir, 'models/tiny.gguf'),
    });
    const updates = await collect(
      (curator as LlamaChatClient).run([{ role: 'user', content: 'Update the memory.' }]),
    );
    expect(updates.at(-1)).toMatchObject({
      type: 'finish',
      reason: 'length',
      usage: { completionTokens: 5 },
    });
    await plugin.close();
    expect(loadedModelCount()).toBe(0);
  });

  it('a model file that fails to load: a warning, and the curator uses the agent model', async () => {
    const file = await agentFile(
      'fallback',
      `${MAIN}\ncontexts:\n  - kind: memory\n    config:\n      memory_model: { provider: gguf, path: models/broken.gguf }\n`,
    );
    const { curator, warnings } = await curatorOf(file);
    expect(curator).toMatchObject({ modelId: 'main' });
    expect(relative(warnings.warnings.map(formatDiagnostic))).toEqual([
      expect.stringMatching(
        /^fallback\.yaml:4:5 contexts\[0\]: memoryModel: cannot load the model models\/broken\.gguf: .+; the curator uses the agent's model$/,
      ),
    ]);
    expect(loadedModelCount()).toBe(0);
  });
});
