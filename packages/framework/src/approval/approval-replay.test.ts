import { ApprovalError, defineTool, type SessionSnapshot, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { AgentSession } from '../sessions/agent-session.js';
import { call, drain, type Harness, startHarness } from '../test-support/harness.js';

let harness: Harness;
afterEach(() => harness?.close());

/** An agent whose one tool is gated and counts its runs, paused on `deploy({ target: 'staging' })`. */
async function paused() {
  harness = await startHarness([
    { toolCalls: [call('d1', 'deploy', { target: 'staging' })] },
    { text: 'deployed' },
    { text: 'again' },
  ]);
  const ran: string[] = [];
  const deploy = defineTool({
    name: 'deploy',
    description: 'Deploy',
    parameters: z.object({ target: z.string() }),
    requiresApproval: true,
    execute: ({ target }) => {
      ran.push(target);
      return toolSuccess(target);
    },
  });
  const agent = new AgentBuilder('a').chatClient(harness.client).withTool(deploy).build();
  const session = agent.createSession('s1');
  const updates = await drain(agent.run('deploy', { session }));
  expect(updates.at(-1)).toMatchObject({ type: 'finish', reason: 'awaitingApproval' });
  return { agent, session, ran };
}

const approve = [{ callId: 'd1', approved: true }];

describe('an approval answer cannot be replayed', () => {
  it('resuming twice with the same answer runs the tool once; the second resume is refused', async () => {
    const { agent, session, ran } = await paused();
    const first = await drain(agent.run(undefined, { session, approvals: approve }));
    expect(first.at(-1)).toMatchObject({ type: 'finish', reason: 'stop' });
    await expect(drain(agent.run(undefined, { session, approvals: approve }))).rejects.toThrow(
      'there is no paused run waiting for approval in session s1',
    );
    expect(ran).toEqual(['staging']);
    // The model was asked twice (the call, then the answer after its result), not a third time.
    expect(harness.server.requests).toHaveLength(2);
  });

  it('an answer for a call id that is not in the paused batch is refused and nothing runs', async () => {
    const { agent, session, ran } = await paused();
    await expect(
      drain(agent.run(undefined, { session, approvals: [{ callId: 'd0', approved: true }] })),
    ).rejects.toThrow(ApprovalError);
    expect(ran).toEqual([]);
    expect(session.pendingApproval?.gatedCallIds).toEqual(['d1']);
  });

  it('a saved session whose paused arguments changed between pause and resume is refused', async () => {
    const { agent, session, ran } = await paused();
    const saved = JSON.parse(JSON.stringify(session.toJSON())) as SessionSnapshot;
    saved.pendingApproval!.toolCalls[0]!.arguments = JSON.stringify({ target: 'production' });
    const tampered = AgentSession.fromJSON(saved);
    const attempt = drain(agent.run(undefined, { session: tampered, approvals: approve }));
    await expect(attempt).rejects.toBeInstanceOf(ApprovalError);
    await expect(drain(agent.run(undefined, { session: tampered, approvals: approve }))).rejects.toThrow(
      'the paused call d1 of session s1 is not the call the model asked for (its arguments changed since the pause)',
    );
    expect(ran).toEqual([]);
    expect(harness.server.requests).toHaveLength(1);
    // The untouched session still resumes with the arguments the human was shown.
    await drain(agent.run(undefined, { session, approvals: approve }));
    expect(ran).toEqual(['staging']);
  });

  it('a saved session whose paused call names another tool is refused', async () => {
    const { agent, session, ran } = await paused();
    const saved = JSON.parse(JSON.stringify(session.toJSON())) as SessionSnapshot;
    saved.pendingApproval!.toolCalls[0]!.name = 'deploy_everything';
    await expect(
      drain(agent.run(undefined, { session: AgentSession.fromJSON(saved), approvals: approve })),
    ).rejects.toThrow('(its tool changed since the pause)');
    expect(ran).toEqual([]);
  });
});
