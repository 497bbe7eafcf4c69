import { ScriptedChatClient } from '@raf/client/testing';
import { type AgentResponseUpdate, defineTool, toolSuccess } from '@raf/core';
import { AgentBuilder, AgentSession } from '@raf/framework';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sequentialAgent, sequentialWorkflow } from '../orchestrations/sequential.js';
import { scriptedAgent } from '../test-support/agents.js';
import { WorkflowAgent } from './workflow-agent.js';

async function drain(stream: AsyncIterable<AgentResponseUpdate>): Promise<AgentResponseUpdate[]> {
  const updates: AgentResponseUpdate[] = [];
  for await (const u of stream) updates.push(u);
  return updates;
}

describe('a workflow as an agent', () => {
  it('pauses on a tool approval inside an agent node and resumes from the saved session after a restart', async () => {
    let deleted = 0;
    const remove = defineTool({
      name: 'remove_file',
      description: 'Remove a file',
      parameters: z.object({ path: z.string() }),
      requiresApproval: true,
      execute: () => {
        deleted++;
        return toolSuccess('removed');
      },
    });
    const client = new ScriptedChatClient([
      { toolCalls: [{ id: 'rm1', name: 'remove_file', arguments: { path: 'old.txt' } }] },
      { text: 'old.txt is gone.' },
    ]);
    const cleaner = new AgentBuilder('cleaner').chatClient(client).withTool(remove).build();
    const reporter = scriptedAgent('reporter', ['Report: cleaned']);
    const session = new AgentSession('s1');
    const first = await drain(sequentialAgent([cleaner, reporter]).run('clean up', { session }));
    expect(
      first.filter((u) => u.type === 'tool-approval-request').map((u) => (u as { callId: string }).callId),
    ).toEqual(['rm1']);
    expect(first.at(-1)).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
    expect(session.pendingApproval?.gatedCallIds).toEqual(['rm1']);
    expect(deleted).toBe(0);
    // A restart: the session from its JSON, a new workflow agent over the same agents.
    const restored = AgentSession.fromJSON(JSON.parse(JSON.stringify(session.toJSON())));
    const again = new WorkflowAgent(sequentialWorkflow([cleaner, reporter]));
    const second = await drain(
      again.run(undefined, { session: restored, approvals: [{ callId: 'rm1', approved: true }] }),
    );
    expect(deleted).toBe(1);
    expect(
      second
        .filter((u) => u.type === 'text-delta')
        .map((u) => (u as { delta: string }).delta)
        .join(''),
    ).toBe('Report: cleaned');
    expect(second.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    expect(restored.pendingApproval).toBeUndefined();
    expect(restored.messages.map((m) => m.content)).toEqual(['clean up', 'Report: cleaned']);
  });

  it('nests: a workflow agent is an agent node of another workflow', async () => {
    const inner = sequentialAgent([scriptedAgent('a', ['A says hi'])]);
    const outer = sequentialAgent([inner, scriptedAgent('b', ['B got it'])]);
    const updates = await drain(outer.run('go'));
    expect(
      updates
        .filter((u) => u.type === 'text-delta')
        .map((u) => (u as { delta: string }).delta)
        .join(''),
    ).toBe('B got it');
  });
});
