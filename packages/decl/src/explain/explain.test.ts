import type { IContextProvider } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { DeclAgentBuilder } from '../builder/decl-agent-builder.js';

const yaml = 'name: a\nmodel: { id: m, provider: openai }\n';

describe('explain: provider details', () => {
  it('a provider with describe() has its result as the context details; one without has none', async () => {
    const described: IContextProvider = {
      name: 'docs',
      kind: 'index',
      describe: async () => ({ files: 3, built: true }),
    };
    const plain: IContextProvider = { name: 'plain', kind: 'custom' };
    const plan = await new DeclAgentBuilder()
      .fromYaml(yaml)
      .withContext(described)
      .withContext(plain)
      .explain();
    expect(plan.contexts).toEqual([
      { kind: 'history', name: 'InMemoryHistoryProvider', order: 0 },
      { kind: 'index', name: 'docs', order: 1, details: { files: 3, built: true } },
      { kind: 'custom', name: 'plain', order: 2 },
    ]);
  });

  it('a describe() that fails is a warning, not a failed explain', async () => {
    const broken: IContextProvider = {
      name: 'docs',
      kind: 'index',
      describe: () => Promise.reject(new Error('index file is corrupt')),
    };
    const plan = await new DeclAgentBuilder().fromYaml(yaml).withContext(broken).explain();
    expect(plan.contexts[1]).toEqual({ kind: 'index', name: 'docs', order: 1 });
    expect(plan.warnings).toEqual(["index 'docs': index file is corrupt"]);
  });
});
