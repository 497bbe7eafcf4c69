import { ScriptedChatClient } from '@raf/client/testing';
import type { Declaration, RafPlugin } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { DeclAgentBuilder } from './decl-agent-builder.js';

describe('model providers from plugins', () => {
  it("get model.config (the provider's own settings, keys as written) with the declaration", async () => {
    const seen: Declaration[] = [];
    const plugin: RafPlugin = {
      specificationVersion: 'v1',
      packageName: '@raf/llama',
      modelProviders: {
        llama: (decl) => {
          seen.push(decl);
          return new ScriptedChatClient([]);
        },
      },
    };
    const build = (model: string) =>
      new DeclAgentBuilder().fromYaml(`name: a\nmodel: ${model}\n`).use(plugin).build();
    await build('{ provider: llama, id: tiny, config: { model_path: m.gguf, useGpu: false } }');
    await build('{ provider: llama, id: tiny, connection: { endpoint: m.gguf } }');
    expect(seen).toEqual([
      {
        kind: 'llama',
        name: 'tiny',
        connection: {},
        options: {},
        config: { model_path: 'm.gguf', useGpu: false },
      },
      { kind: 'llama', name: 'tiny', connection: { endpoint: 'm.gguf' }, options: {} },
    ]);
  });
});
