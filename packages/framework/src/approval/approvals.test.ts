import { ApprovalError, defineTool, type IContextProvider, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import {
  call,
  drain,
  echoTool,
  type Harness,
  roles,
  sentMessages,
  significant,
  startHarness,
} from '../test-support/harness.js';
import { ApprovalRequiredTool } from './approval-required-tool.js';

let harness: Harness;
afterEach(() => harness?.close());

function counted(name: string, gated: boolean) {
  const calls: string[] = [];
  const tool = defineTool({
    name,
    description: `${name} tool`,
    parameters: z.object({ text: z.string() }),
    ...(gated && { requiresApproval: true }),
    execute: ({ text }) => {
      calls.push(text);
      return toolSuccess(`${name}:${text}`);
    },
  });
  return { tool, calls };
}

async function pausedAgent(turns: Parameters<typeof startHarness>[0]) {
  harness = await startHarness(turns);
  const deploy = counted('deploy', true);
  const notify = counted('notify', true);
  const read = counted('read', false);
  const agent = new AgentBuilder('a')
    .chatClient(harness.client)
    .withTools([deploy.tool, notify.tool, read.tool])
    .build();
  return { agent, deploy, notify, read, session: agent.createSession('s1') };
}

describe('rule 5: approvals', () => {
  it('pauses with structured requests, then resumes with the results right after the call message', async () => {
    const { agent, deploy, session } = await pausedAgent([
      { toolCalls: [call('c1', 'deploy', { text: 'prod' })] },
      { text: 'Deployed.' },
    ]);
    const paused = significant(await drain(agent.run('deploy it', { session })));
    expect(paused).toEqual([
      { type: 'tool-call-end', callId: 'c1', name: 'deploy', arguments: '{"text":"prod"}' },
      {
        type: 'tool-approval-request',
        callId: 'c1',
        name: 'deploy',
        arguments: { text: 'prod' },
        description: 'deploy tool',
      },
      { type: 'finish', reason: 'awaitingApproval' },
    ]);
    expect(deploy.calls).toEqual([]);
    expect(session.pendingApproval?.gatedCallIds).toEqual(['c1']);

    const resumed = significant(
      await drain(agent.run(undefined, { session, approvals: [{ callId: 'c1', approved: true }] })),
    );
    expect(resumed).toEqual([
      { type: 'tool-called', callId: 'c1', name: 'deploy', result: { ok: true, data: 'deploy:prod' } },
      { type: 'text-delta', delta: 'Deployed.' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(deploy.calls).toEqual(['prod']);
    expect(session.pendingApproval).toBeUndefined();
    // No new user message: the tool result follows the assistant's call directly.
    expect(roles(sentMessages(harness.server, 1))).toEqual(['user', 'assistant', 'tool']);
    expect(roles(session.messages)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('mixed batch: nothing runs while paused; on resume the ungated calls run too', async () => {
    const { agent, deploy, read, session } = await pausedAgent([
      {
        toolCalls: [
          call('r1', 'read', { text: 'a' }),
          call('d1', 'deploy', { text: 'b' }),
          call('r2', 'read', { text: 'c' }),
        ],
      },
      { text: 'done' },
    ]);
    const paused = await drain(agent.run('go', { session }));
    expect(
      paused
        .filter((u) => u.type === 'tool-approval-request')
        .map((u) => u.type === 'tool-approval-request' && u.callId),
    ).toEqual(['d1']);
    expect(read.calls).toEqual([]);
    await drain(agent.run(undefined, { session, approvals: [{ callId: 'd1', approved: true }] }));
    expect(read.calls.sort()).toEqual(['a', 'c']);
    expect(deploy.calls).toEqual(['b']);
    expect(
      sentMessages(harness.server, 1)
        .filter((m) => m.role === 'tool')
        .map((m) => m.tool_call_id),
    ).toEqual(['r1', 'd1', 'r2']);
  });

  it('all denied: each gated call gets "Rejected: <reason>", default "User denied"', async () => {
    const { agent, deploy, notify, session } = await pausedAgent([
      { toolCalls: [call('d1', 'deploy', { text: 'x' }), call('n1', 'notify', { text: 'y' })] },
      { text: 'ok' },
    ]);
    await drain(agent.run('go', { session }));
    const resumed = await drain(
      agent.run(undefined, {
        session,
        approvals: [
          { callId: 'd1', approved: false, reason: 'not on Friday' },
          { callId: 'n1', approved: false },
        ],
      }),
    );
    expect(
      resumed.filter((u) => u.type === 'tool-called').map((u) => u.type === 'tool-called' && u.result),
    ).toEqual([
      { ok: false, error: 'Rejected: not on Friday' },
      { ok: false, error: 'Rejected: User denied' },
    ]);
    expect(deploy.calls).toEqual([]);
    expect(notify.calls).toEqual([]);
  });

  it('partial answers: an unanswered gated call counts as denied', async () => {
    const { agent, deploy, notify, session } = await pausedAgent([
      { toolCalls: [call('d1', 'deploy', { text: 'x' }), call('n1', 'notify', { text: 'y' })] },
      { text: 'ok' },
    ]);
    await drain(agent.run('go', { session }));
    const resumed = await drain(
      agent.run(undefined, { session, approvals: [{ callId: 'n1', approved: true }] }),
    );
    expect(
      resumed.filter((u) => u.type === 'tool-called').map((u) => u.type === 'tool-called' && u.result.ok),
    ).toEqual([false, true]);
    expect(deploy.calls).toEqual([]);
    expect(notify.calls).toEqual(['y']);
  });

  it('rejects unknown, ungated and duplicate call ids with a clear error and keeps the pause', async () => {
    const { agent, session } = await pausedAgent([
      { toolCalls: [call('d1', 'deploy', { text: 'x' }), call('r1', 'read', { text: 'y' })] },
      { text: 'ok' },
    ]);
    await drain(agent.run('go', { session }));
    const attempt = (approvals: { callId: string; approved: boolean }[]) =>
      drain(agent.run(undefined, { session, approvals }));
    await expect(attempt([{ callId: 'forged', approved: true }])).rejects.toThrow(
      'unknown call id forged in session s1; the paused calls waiting for approval are d1',
    );
    await expect(attempt([{ callId: 'r1', approved: true }])).rejects.toThrow(
      'call r1 did not ask for approval in session s1; only d1 did',
    );
    await expect(
      attempt([
        { callId: 'd1', approved: true },
        { callId: 'd1', approved: false },
      ]),
    ).rejects.toThrow('call d1 is answered twice');
    await expect(attempt([{ callId: 'forged', approved: true }])).rejects.toBeInstanceOf(ApprovalError);
    expect(session.pendingApproval?.gatedCallIds).toEqual(['d1']);
    expect(harness.server.requests).toHaveLength(1);
  });

  it('refuses a second resume and new input while paused', async () => {
    const { agent, session } = await pausedAgent([
      { toolCalls: [call('d1', 'deploy', { text: 'x' })] },
      { text: 'ok' },
    ]);
    await drain(agent.run('go', { session }));
    await expect(drain(agent.run('something else', { session }))).rejects.toThrow(
      /session s1 is paused waiting for approval of d1; resume with agent\.run\(undefined/,
    );
    await drain(agent.run(undefined, { session, approvals: [{ callId: 'd1', approved: true }] }));
    await expect(
      drain(agent.run(undefined, { session, approvals: [{ callId: 'd1', approved: true }] })),
    ).rejects.toThrow('there is no paused run waiting for approval in session s1');
  });

  it('cancelling while paused leaves the pause intact; it can be resumed later', async () => {
    const { agent, deploy, session } = await pausedAgent([
      { toolCalls: [call('d1', 'deploy', { text: 'x' })] },
      { text: 'ok' },
    ]);
    await drain(agent.run('go', { session }));
    const cancelled = await drain(
      agent.run(undefined, {
        session,
        approvals: [{ callId: 'd1', approved: true }],
        signal: AbortSignal.abort(),
      }),
    );
    expect(cancelled.at(-1)).toEqual({ type: 'finish', reason: 'cancelled' });
    expect(deploy.calls).toEqual([]);
    expect(session.pendingApproval?.gatedCallIds).toEqual(['d1']);
    const resumed = await drain(
      agent.run(undefined, { session, approvals: [{ callId: 'd1', approved: true }] }),
    );
    expect(resumed.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    expect(deploy.calls).toEqual(['x']);
  });

  it('consults requiresApproval(args) per call', async () => {
    harness = await startHarness([
      { toolCalls: [call('small', 'pay', { amount: 5 }), call('big', 'pay', { amount: 500 })] },
      { text: 'ok' },
    ]);
    const paid: number[] = [];
    const pay = defineTool({
      name: 'pay',
      description: 'Pay',
      parameters: z.object({ amount: z.number() }),
      requiresApproval: (args) => args === undefined || args.amount > 100,
      execute: ({ amount }) => {
        paid.push(amount);
        return toolSuccess();
      },
    });
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(pay).build();
    const session = agent.createSession();
    const paused = await drain(agent.run('pay', { session }));
    expect(
      paused
        .filter((u) => u.type === 'tool-approval-request')
        .map((u) => u.type === 'tool-approval-request' && u.callId),
    ).toEqual(['big']);
    await drain(agent.run(undefined, { session, approvals: [{ callId: 'big', approved: true }] }));
    expect(paid.sort((a, b) => a - b)).toEqual([5, 500]);
  });

  it('finds a provider-injected gated tool on resume', async () => {
    harness = await startHarness([{ toolCalls: [call('i1', 'injected', { text: 'z' })] }, { text: 'ok' }]);
    const injected = counted('injected', false);
    const provider: IContextProvider = {
      name: 'skills',
      kind: 'skills',
      injectsTools: true,
      onInvoking: () => ({
        tools: [new ApprovalRequiredTool(injected.tool, { reason: 'Runs an injected action' })],
      }),
    };
    const agent = new AgentBuilder('a').chatClient(harness.client).withContextProvider(provider).build();
    const session = agent.createSession();
    const paused = await drain(agent.run('go', { session }));
    expect(paused.find((u) => u.type === 'tool-approval-request')).toMatchObject({
      description: 'Runs an injected action',
    });
    await drain(agent.run(undefined, { session, approvals: [{ callId: 'i1', approved: true }] }));
    expect(injected.calls).toEqual(['z']);
  });

  it('binds an approval to the resolved target: a target that changed is refused', async () => {
    harness = await startHarness([
      { toolCalls: [call('w1', 'write', { text: 'notes.txt' })] },
      { text: 'ok' },
    ]);
    let resolvesTo = '/work/notes.txt';
    const written: string[] = [];
    const write = new ApprovalRequiredTool(
      Object.assign(echoTool('write'), {
        resolveTarget: () => resolvesTo,
        execute: async () => {
          written.push(resolvesTo);
          return toolSuccess();
        },
      }),
    );
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(write).build();
    const session = agent.createSession();
    const paused = await drain(agent.run('write', { session }));
    expect(paused.find((u) => u.type === 'tool-approval-request')).toMatchObject({
      resolvedTarget: '/work/notes.txt',
    });
    resolvesTo = '/etc/passwd';
    const resumed = await drain(
      agent.run(undefined, { session, approvals: [{ callId: 'w1', approved: true }] }),
    );
    expect(resumed.find((u) => u.type === 'tool-called')).toMatchObject({
      result: {
        ok: false,
        error: "Refused: the approval was for '/work/notes.txt', but the call now resolves to '/etc/passwd'",
      },
    });
    expect(written).toEqual([]);
  });
});
