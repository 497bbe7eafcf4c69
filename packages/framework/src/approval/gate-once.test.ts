import { defineTool, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { call, drain, type Harness, startHarness } from '../test-support/harness.js';

let harness: Harness;
afterEach(() => harness?.close());

function countedTool(gated: (env: string) => boolean) {
  const asked: string[] = [];
  const tool = defineTool({
    name: 'deploy',
    description: 'Deploys',
    parameters: z.object({ env: z.string() }),
    requiresApproval: (args) => {
      asked.push(args?.env ?? '(no args)');
      return args ? gated(args.env) : true;
    },
    execute: ({ env }) => toolSuccess({ deployed: env }),
  });
  return { tool, asked };
}

describe('the approval gate is decided once per call', () => {
  it('asks requiresApproval once for a call that runs without a human', async () => {
    harness = await startHarness([
      { toolCalls: [call('c1', 'deploy', { env: 'dev' }), call('c2', 'deploy', { env: 'test' })] },
      { text: 'done' },
    ]);
    const { tool, asked } = countedTool(() => false);
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(tool).build();
    await drain(agent.run('go'));
    expect(asked).toEqual(['dev', 'test']);
  });

  it('asks once for a gated call, paused and approved', async () => {
    harness = await startHarness([
      { toolCalls: [call('c1', 'deploy', { env: 'prod' }), call('c2', 'deploy', { env: 'dev' })] },
      { text: 'done' },
    ]);
    const { tool, asked } = countedTool((env) => env === 'prod');
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(tool).build();
    const session = agent.createSession();
    const paused = await drain(agent.run('go', { session }));
    expect(paused.at(-1)).toMatchObject({ reason: 'awaitingApproval' });
    const resumed = await drain(
      agent.run(undefined, { session, approvals: [{ callId: 'c1', approved: true }] }),
    );
    expect(resumed.filter((u) => u.type === 'tool-called')).toHaveLength(2);
    expect(asked).toEqual(['prod', 'dev']);
  });
});
