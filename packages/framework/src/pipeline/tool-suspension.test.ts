import {
  ApprovalError,
  defineTool,
  type JSONValue,
  type ToolApprovalRequestUpdate,
  toolSuccess,
} from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { AgentSession } from '../sessions/agent-session.js';
import { call, drain, type Harness, significant, startHarness } from '../test-support/harness.js';
import { ToolSuspension } from './tool-suspension.js';

let harness: Harness;
afterEach(() => harness?.close());

/** A tool that suspends once, then answers with the approvals it was resumed with. */
function suspendingTool(log: string[]) {
  return defineTool({
    name: 'delegate',
    description: 'asks a nested agent',
    parameters: z.object({ task: z.string() }),
    execute: async ({ task }, ctx) => {
      if (!ctx.resume) {
        log.push(`suspend ${task}`);
        const request: ToolApprovalRequestUpdate = {
          type: 'tool-approval-request',
          callId: `${ctx.callId}/inner`,
          name: 'write_file',
          arguments: { path: 'a.txt' },
          description: 'write',
          resolvedTarget: '/w/a.txt',
          agentPath: ['writer'],
        };
        throw new ToolSuspension([request], { task, step: 1 });
      }
      log.push(`resume ${JSON.stringify(ctx.resume)}`);
      return toolSuccess({ approved: ctx.resume.approvals.map((a) => a.approved) });
    },
  });
}

function countingTool(log: string[]) {
  return defineTool({
    name: 'count',
    description: 'counts',
    parameters: z.object({ n: z.number() }),
    execute: async ({ n }) => {
      log.push(`count ${n}`);
      return toolSuccess(n);
    },
  });
}

describe('a tool that suspends the run (ToolSuspension)', () => {
  it('pauses the root with its requests, keeps the batch siblings results, resumes it with the answers', async () => {
    harness = await startHarness([
      {
        toolCalls: [call('c1', 'count', { n: 1 }), call('d1', 'delegate', { task: 't' })],
      },
      { text: 'done' },
    ]);
    const log: string[] = [];
    const agent = new AgentBuilder('root')
      .chatClient(harness.client)
      .withTools([countingTool(log), suspendingTool(log)])
      .build();
    const session = agent.createSession('s');
    const paused = significant(await drain(agent.run('go', { session })));
    expect(paused.slice(-2)).toEqual([
      {
        type: 'tool-approval-request',
        callId: 'd1/inner',
        name: 'write_file',
        arguments: { path: 'a.txt' },
        description: 'write',
        resolvedTarget: '/w/a.txt',
        agentPath: ['writer'],
      },
      { type: 'finish', reason: 'awaitingApproval' },
    ]);
    expect(log).toEqual(['count 1', 'suspend t']);
    // Plain JSON: the paused batch survives a save and a load.
    const restored = AgentSession.fromJSON(JSON.parse(JSON.stringify(session.toJSON())));
    expect(restored.pendingApproval).toMatchObject({
      gatedCallIds: ['d1/inner'],
      results: { c1: { ok: true, data: 1 } },
      suspended: { d1: { state: { task: 't', step: 1 } } },
    });
    expect(restored.messages.map((m) => m.role)).toEqual(['user', 'assistant']);

    await expect(
      drain(agent.run(undefined, { session: restored, approvals: [{ callId: 'forged', approved: true }] })),
    ).rejects.toBeInstanceOf(ApprovalError);
    const resumed = significant(
      await drain(
        agent.run(undefined, { session: restored, approvals: [{ callId: 'd1/inner', approved: true }] }),
      ),
    );
    expect(resumed).toEqual([
      { type: 'tool-called', callId: 'c1', name: 'count', result: { ok: true, data: 1 } },
      {
        type: 'tool-called',
        callId: 'd1',
        name: 'delegate',
        result: { ok: true, data: { approved: [true] } },
      },
      { type: 'text-delta', delta: 'done' },
      { type: 'finish', reason: 'stop' },
    ]);
    // The sibling ran once; the suspended call got its state and only its own answers.
    expect(log).toEqual([
      'count 1',
      'suspend t',
      'resume {"state":{"task":"t","step":1},"approvals":[{"callId":"d1/inner","approved":true}]}',
    ]);
    expect(restored.pendingApproval).toBeUndefined();
    expect(restored.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
  });

  it('an unanswered request reaches the tool as no answer; a call can suspend again on resume', async () => {
    harness = await startHarness([{ toolCalls: [call('d1', 'delegate', { task: 't' })] }, { text: 'ok' }]);
    let runs = 0;
    const tool = defineTool({
      name: 'delegate',
      description: 'x',
      parameters: z.object({ task: z.string() }),
      execute: async (_args, ctx) => {
        runs++;
        if (runs < 3) {
          throw new ToolSuspension(
            [
              {
                type: 'tool-approval-request',
                callId: `${ctx.callId}/r${runs}`,
                name: 'w',
                arguments: {},
                description: 'w',
              },
            ],
            runs,
          );
        }
        return toolSuccess(ctx.resume as unknown as JSONValue);
      },
    });
    const agent = new AgentBuilder('root').chatClient(harness.client).withTool(tool).build();
    const session = agent.createSession();
    expect((await drain(agent.run('go', { session }))).at(-1)).toEqual({
      type: 'finish',
      reason: 'awaitingApproval',
    });
    const again = await drain(agent.run(undefined, { session, approvals: [] }));
    expect(
      again
        .filter((u) => u.type === 'tool-approval-request')
        .map((u) => u.type === 'tool-approval-request' && u.callId),
    ).toEqual(['d1/r2']);
    expect(session.pendingApproval?.gatedCallIds).toEqual(['d1/r2']);
    const last = await drain(
      agent.run(undefined, { session, approvals: [{ callId: 'd1/r2', approved: false }] }),
    );
    expect(last.find((u) => u.type === 'tool-called')).toMatchObject({
      result: { ok: true, data: { state: 2, approvals: [{ callId: 'd1/r2', approved: false }] } },
    });
    expect(last.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });
});
