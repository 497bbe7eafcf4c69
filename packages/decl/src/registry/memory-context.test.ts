import { mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedChatClient } from '@raf/client/testing';
import type { Declaration, RafPlugin } from '@raf/core';
import { SuperBrainContextProvider } from '@raf/framework';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeclAgentBuilder } from '../builder/decl-agent-builder.js';
import { formatDiagnostic } from '../diagnostics/diagnostic.js';

let dir: string;
beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-decl-memory-')));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const MODEL = 'model: { id: m, provider: custom, connection: { endpoint: "http://127.0.0.1:9/v1" } }';

async function agentFile(name: string, contexts: string): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  await writeFile(file, `name: ${name}\n${MODEL}\ncontexts:\n${contexts}`);
  return file;
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

describe('kind: memory in YAML', () => {
  it('inspect lists memory tools as injected (main-process-proxy), never routed to the workspace; validate creates nothing', async () => {
    const file = await agentFile(
      'brain',
      '  - kind: workspace\n    name: ws\n    config: { root: ., policy: deny }\n  - kind: memory\n    name: super-brain\n',
    );
    const builder = new DeclAgentBuilder().fromYamlFile(file);
    expect(await builder.validate()).toEqual({ ok: true, errors: [], warnings: [] });
    const plan = await builder.explain();
    expect(plan.contexts.map((c) => c.kind)).toEqual(['history', 'workspace', 'memory']);
    expect(plan.toolLoop).toBe(true);
    expect(
      plan.tools.map(({ name, source, context, route, executionMode }) => ({
        name,
        source,
        context,
        route,
        executionMode,
      })),
    ).toEqual([
      {
        name: 'load_skill',
        source: 'injected',
        context: 'super-brain',
        route: 'main-process-proxy',
        executionMode: 'parallel',
      },
      {
        name: 'read_skill_resource',
        source: 'injected',
        context: 'super-brain',
        route: 'main-process-proxy',
        executionMode: 'parallel',
      },
      {
        name: 'memory_save',
        source: 'injected',
        context: 'super-brain',
        route: 'main-process-proxy',
        executionMode: 'parallel',
      },
      {
        name: 'memory_recall',
        source: 'injected',
        context: 'super-brain',
        route: 'main-process-proxy',
        executionMode: 'parallel',
      },
    ]);
    expect(await exists(join(dir, 'logs'))).toBe(false);
  });

  it('builds a provider on the folder relative to the YAML, with its settings and the main client', async () => {
    const file = await agentFile(
      'settings',
      '  - kind: memory\n    name: super-brain\n    config: { directory: mem, consolidation_interval: 0, language: zh-CN }\n',
    );
    const agent = await new DeclAgentBuilder().fromYamlFile(file).build();
    const provider = agent.contextProviders.find(
      (p) => p instanceof SuperBrainContextProvider,
    ) as SuperBrainContextProvider;
    expect(provider).toMatchObject({
      directory: join(dir, 'mem'),
      consolidationInterval: 0,
      language: 'zh-CN',
      enabled: true,
    });
    const defaults = await new DeclAgentBuilder()
      .fromYamlFile(await agentFile('defaults', '  - kind: memory\n'))
      .build();
    expect(defaults.contextProviders.find((p) => p.kind === 'memory')).toMatchObject({
      directory: join(dir, 'logs', 'super-brain'),
      consolidationInterval: 3,
      language: 'en',
    });
  });

  it('reports a wrong name, a bad interval, a language it does not speak and a memoryModel without a path', async () => {
    const file = await agentFile(
      'broken',
      [
        '  - kind: memory',
        '    name: mega-brain',
        '  - kind: bundle',
        '    name: other',
        '  - kind: memory',
        '    name: skill-memory',
        '    config: { consolidationInterval: "3", language: fr }',
        '  - kind: memory',
        '    name: super-brain',
        '    config: { memoryModel: { provider: llama, topP: 2 } }',
        '',
      ].join('\n'),
    );
    const report = await new DeclAgentBuilder().fromYamlFile(file).validate();
    expect(report.errors.map(formatDiagnostic).map((l) => l.slice(dir.length + 1))).toEqual([
      'broken.yaml:4:5 contexts[0]: kind: memory has no name "mega-brain"; use "super-brain" or "skill-memory"',
      'broken.yaml:6:5 contexts[1]: kind: bundle has no name "other"; use kind: memory, name: super-brain',
      'broken.yaml:10:38 contexts[2].config.consolidationInterval: Invalid input: expected number, received string',
      'broken.yaml:10:53 contexts[2].config.language: must be one of "en", "zh-CN"',
      'broken.yaml:13:28 contexts[3].config.memoryModel.modelPath: is required',
      'broken.yaml:13:53 contexts[3].config.memoryModel.topP: Too big: expected number to be <=1',
    ]);
  });

  it('memoryModel goes to the registered model provider; when it fails, a warning and the main client', async () => {
    const seen: Declaration[] = [];
    const curator = new ScriptedChatClient([]);
    const llama = (fail: boolean): RafPlugin => ({
      specificationVersion: 'v1',
      packageName: '@raf/llama',
      modelProviders: {
        llama: (decl) => {
          seen.push(decl);
          if (fail) throw new Error('cannot load models/tiny.gguf: bad magic');
          return curator;
        },
      },
    });
    const file = await agentFile(
      'local',
      '  - kind: memory\n    config:\n      memory_model: { path: models/tiny.gguf, id: tiny, temperature: 0.2, max_tokens: 64, use_gpu: false }\n',
    );
    const agent = await new DeclAgentBuilder().fromYamlFile(file).use(llama(false)).build();
    expect(seen[0]).toEqual({
      kind: 'llama',
      name: 'tiny',
      connection: {},
      options: { temperature: 0.2, maxOutputTokens: 64 },
      config: { modelPath: join(dir, 'models/tiny.gguf'), useGpu: false },
    });
    expect(
      (agent.contextProviders.find((p) => p.kind === 'memory') as unknown as { curator: unknown }).curator,
    ).toBe(curator);
    const report = await new DeclAgentBuilder().fromYamlFile(file).use(llama(true)).validate();
    expect(report.warnings.map(formatDiagnostic).map((l) => l.slice(dir.length + 1))).toEqual([
      "local.yaml:4:5 contexts[0]: memoryModel: cannot load models/tiny.gguf: bad magic; the curator uses the agent's model",
    ]);
  });
});
