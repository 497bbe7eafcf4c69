import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IContextProvider } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { ApprovalRequiredTool } from '../approval/approval-required-tool.js';
import { call, drain, echoTool, type Harness, startHarness } from '../test-support/harness.js';
import { FileGovernanceStore } from './governance-store.js';
import { withDescription } from './governance-view.js';
import { ToolGovernance } from './tool-governance.js';

let harness: Harness;
let dir: string | undefined;
afterEach(async () => {
  await harness?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type SentTool = { function: { name: string; description: string } };
const sentTools = (index: number) =>
  ((harness.server.requests[index]?.body?.tools ?? []) as SentTool[]).map((t) => [
    t.function.name,
    t.function.description,
  ]);

const injecting: IContextProvider = {
  name: 'injector',
  kind: 'skills',
  injectsTools: true,
  onInvoking: () => ({ tools: [echoTool('load_skill'), echoTool('injected')] }),
};

describe('governance at run time', () => {
  it('reads the store before every run: a tool disabled since is gone, hints reach the descriptions', async () => {
    harness = await startHarness([{ text: 'one' }, { text: 'two' }]);
    dir = await mkdtemp(join(tmpdir(), 'raf-gov-'));
    const store = new FileGovernanceStore(join(dir, '.raf', 'governance.json'));
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTools([echoTool('read_file'), echoTool('search_file')])
      .withContextProvider(injecting)
      .withToolGovernance(store, {
        promptHints: { read_file: 'Read small ranges.' },
        disabled: ['load_skill'],
      })
      .build();
    await drain(agent.run('first'));
    expect(sentTools(0)).toEqual([
      ['read_file', 'Echoes its text (read_file)\n\nRead small ranges.'],
      ['search_file', 'Echoes its text (search_file)'],
      // load_skill is a core tool: the agent's toolPolicy cannot disable it.
      ['load_skill', 'Echoes its text (load_skill)'],
      ['injected', 'Echoes its text (injected)'],
    ]);
    // What `raf tools disable grep` and `raf tools disable injected` do, between two runs.
    const governance = new ToolGovernance(await store.load());
    governance.setEnabled('grep', false);
    governance.setEnabled('injected', false);
    await store.save(governance.data);
    await drain(agent.run('second'));
    expect(sentTools(1).map(([name]) => name)).toEqual(['read_file', 'load_skill']);
  });

  it('a disabled tool the model calls anyway is not found, and nothing runs', async () => {
    harness = await startHarness([{ toolCalls: [call('c1', 'echo', { text: 'x' })] }, { text: 'ok' }]);
    const governance = new ToolGovernance();
    governance.setEnabled('echo', false);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTool(echoTool('echo'))
      .withToolGovernance(governance)
      .build();
    const updates = await drain(agent.run('go'));
    expect(updates.find((u) => u.type === 'tool-called')).toMatchObject({
      result: { ok: false, error: "Tool 'echo' not found" },
    });
  });

  it('a reworded tool keeps its class and methods', () => {
    const gated = new ApprovalRequiredTool(echoTool('deploy'), { reason: 'deploys' });
    const hinted = withDescription(gated, 'new words');
    expect(hinted).toBeInstanceOf(ApprovalRequiredTool);
    expect(hinted.description).toBe('new words');
    expect(hinted.approvalReason).toBe('deploys');
    expect(gated.description).toBe('Echoes its text (deploy)');
  });
});
