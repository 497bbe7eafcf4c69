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
      { kind: 'history', name: 'InMemoryHistoryProvider', provider: 'InMemoryHistoryProvider', order: 0 },
      { kind: 'index', name: 'docs', provider: 'docs', order: 1, details: { files: 3, built: true } },
      { kind: 'custom', name: 'plain', provider: 'plain', order: 2 },
    ]);
  });

  it('a describe() that fails is a warning, not a failed explain', async () => {
    const broken: IContextProvider = {
      name: 'docs',
      kind: 'index',
      describe: () => Promise.reject(new Error('index file is corrupt')),
    };
    const plan = await new DeclAgentBuilder().fromYaml(yaml).withContext(broken).explain();
    expect(plan.contexts[1]).toEqual({ kind: 'index', name: 'docs', provider: 'docs', order: 1 });
    expect(plan.warnings).toEqual(["index 'docs': index file is corrupt"]);
  });
});

describe('explain: toolPolicy as written', () => {
  it("shows the agent's and each sub-agent's toolPolicy as the file writes them (aliases kept), null when absent", async () => {
    const plan = await new DeclAgentBuilder()
      .fromYaml(
        [
          'name: lead',
          'model: { id: m, provider: openai }',
          'toolPolicy:',
          '  disabled: [bash]',
          '  routing: { grep: force-main-process-proxy }',
          'subAgents:',
          '  - name: reader',
          '    model: { id: m, provider: openai }',
          '    runtime: inline',
          '    toolPolicy: { disabled: [read_file], promptHints: { read_file: small files } }',
          '  - name: plain',
          '    model: { id: m, provider: openai }',
          '    runtime: inline',
          '',
        ].join('\n'),
      )
      .withGovernance({ version: 1, tools: {} })
      .explain();
    expect(plan.toolPolicy).toEqual({ disabled: ['bash'], routing: { grep: 'force-main-process-proxy' } });
    expect(plan.orchestration?.subAgents).toEqual([
      {
        name: 'reader',
        runtime: 'inline',
        toolPolicy: { disabled: ['read_file'], promptHints: { read_file: 'small files' } },
      },
      { name: 'plain', runtime: 'inline', toolPolicy: null },
    ]);
    const alone = await new DeclAgentBuilder().fromYaml(yaml).explain();
    expect(alone.toolPolicy).toBeNull();
  });
});
