import { defineTool, type ISession, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { ApprovalRequiredTool } from '../approval/approval-required-tool.js';
import { AgentSession } from '../sessions/agent-session.js';
import { call, drain, type Harness, significant, startHarness } from '../test-support/harness.js';

let harness: Harness;
afterEach(() => harness?.close());

interface Tenant {
  tenantId: string;
  admin: boolean;
}

describe('the run context reaches every tool', () => {
  it("hands agent.run's context and the session id to execute and requiresApproval", async () => {
    harness = await startHarness([
      { toolCalls: [call('c1', 'whoami', {}), call('c2', 'drop', {})] },
      { text: 'ok' },
    ]);
    const seen: unknown[] = [];
    const whoami = defineTool<z.ZodObject<{}>, Tenant>({
      name: 'whoami',
      description: 'The tenant',
      parameters: z.object({}),
      execute: (_args, ctx) => {
        seen.push({ tool: 'whoami', context: ctx.context, sessionId: ctx.sessionId, callId: ctx.callId });
        return toolSuccess(ctx.context.tenantId);
      },
    });
    const drop = defineTool<z.ZodObject<{}>, Tenant>({
      name: 'drop',
      description: 'Drops a table (admins only run it unasked)',
      parameters: z.object({}),
      requiresApproval: (_args, ctx) => {
        seen.push({ gate: 'drop', context: ctx?.context, sessionId: ctx?.sessionId, callId: ctx?.callId });
        return ctx?.context.admin !== true;
      },
      execute: () => toolSuccess('dropped'),
    });
    const agent = new AgentBuilder<Tenant>('a').chatClient(harness.client).withTools([whoami, drop]).build();
    const session = agent.createSession('s-1');
    const context = { tenantId: 't-9', admin: true };
    const response = await agent.generate('go', { session, context });
    expect(response.toolResults.map((r) => r.result)).toEqual([
      { ok: true, data: 't-9' },
      { ok: true, data: 'dropped' },
    ]);
    // The gate is asked once, when the batch is planned (issue 27: decided once per call).
    expect(seen).toEqual([
      { gate: 'drop', context, sessionId: 's-1', callId: 'c2' },
      { tool: 'whoami', context, sessionId: 's-1', callId: 'c1' },
    ]);
  });

  it("hands the context to an ApprovalRequiredTool's when", async () => {
    harness = await startHarness([{ toolCalls: [call('c1', 'echo', {})] }, { text: 'ok' }]);
    const asked: unknown[] = [];
    const gated = new ApprovalRequiredTool(
      defineTool({
        name: 'echo',
        description: 'echo',
        parameters: z.object({}),
        execute: () => toolSuccess(),
      }),
      {
        when: (_args, ctx) => {
          asked.push(ctx?.context);
          return false;
        },
      },
    );
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(gated).build();
    await agent.generate('go', { context: { tenantId: 't' } });
    // Asked once, when the batch is planned.
    expect(asked).toEqual([{ tenantId: 't' }]);
  });

  it('passes the context of the resuming run to the tools that run on resume', async () => {
    harness = await startHarness([{ toolCalls: [call('c1', 'drop', {})] }, { text: 'done' }]);
    const contexts: unknown[] = [];
    const drop = defineTool<z.ZodObject<{}>, Tenant>({
      name: 'drop',
      description: 'Drops a table',
      parameters: z.object({}),
      requiresApproval: (_args, ctx) => !ctx?.context.admin,
      execute: (_args, { context }) => {
        contexts.push(context);
        return toolSuccess('dropped');
      },
    });
    const agent = new AgentBuilder<Tenant>('a').chatClient(harness.client).withTool(drop).build();
    const session = agent.createSession();
    const paused = await agent.generate('go', { session, context: { tenantId: 't', admin: false } });
    expect(paused.finishReason).toBe('awaitingApproval');
    const resumed = await agent.generate(undefined, {
      session,
      approvals: [{ callId: 'c1', approved: true }],
      context: { tenantId: 't', admin: false },
    });
    expect(resumed.text).toBe('done');
    expect(contexts).toEqual([{ tenantId: 't', admin: false }]);
  });

  it('streams reportProgress lines as tool-progress updates while the tool runs', async () => {
    harness = await startHarness([{ toolCalls: [call('c1', 'index', {})] }, { text: 'ok' }]);
    let releaseSecond: () => void = () => {};
    const secondMayRun = new Promise<void>((resolve) => {
      releaseSecond = resolve;
    });
    const index = defineTool({
      name: 'index',
      description: 'Indexes files',
      parameters: z.object({}),
      execute: async (_args, { reportProgress }) => {
        reportProgress?.('scanning');
        await secondMayRun;
        reportProgress?.('writing');
        return toolSuccess('indexed');
      },
    });
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(index).build();
    const updates = [];
    for await (const update of agent.run('go')) {
      updates.push(update);
      // The first line arrives while the tool still runs (it waits for this).
      if (update.type === 'tool-progress') releaseSecond();
    }
    expect(significant(updates)).toEqual([
      { type: 'tool-call-end', callId: 'c1', name: 'index', arguments: '{}' },
      { type: 'tool-progress', callId: 'c1', name: 'index', message: 'scanning' },
      { type: 'tool-progress', callId: 'c1', name: 'index', message: 'writing' },
      { type: 'tool-called', callId: 'c1', name: 'index', result: { ok: true, data: 'indexed' } },
      { type: 'text-delta', delta: 'ok' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('accepts any ISession, using only its interface', async () => {
    harness = await startHarness([{ toolCalls: [call('c1', 'echo', {})] }, { text: 'hi' }]);
    const inner = new AgentSession('plain');
    // A session of the caller's own: a plain object delegating to the interface, nothing more.
    const session: ISession = {
      get id() {
        return inner.id;
      },
      get messages() {
        return inner.messages;
      },
      get metadata() {
        return inner.metadata;
      },
      get pendingApproval() {
        return inner.pendingApproval;
      },
      set pendingApproval(batch) {
        inner.pendingApproval = batch;
      },
      addMessages: (messages) => inner.addMessages(messages),
      getProviderState: (name) => inner.getProviderState(name),
      setProviderState: (name, value) => inner.setProviderState(name, value),
      toJSON: () => inner.toJSON(),
    };
    const ids: (string | undefined)[] = [];
    const echo = defineTool({
      name: 'echo',
      description: 'echo',
      parameters: z.object({}),
      execute: (_args, { sessionId }) => {
        ids.push(sessionId);
        return toolSuccess();
      },
    });
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(echo).build();
    await drain(agent.run('hello', { session }));
    expect(ids).toEqual(['plain']);
    expect(inner.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});
