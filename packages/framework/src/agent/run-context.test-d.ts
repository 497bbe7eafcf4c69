import type { IChatClient, ITool, ToolExecutionContext } from '@raf/core';
import { defineTool, toolSuccess } from '@raf/core';
import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { AgentBuilder } from './agent-builder.js';
import type { ChatClientAgent } from './chat-client-agent.js';

interface Tenant {
  tenantId: string;
  admin: boolean;
}

declare const client: IChatClient;
const none = z.object({});

const whoami = defineTool<typeof none, Tenant>({
  name: 'whoami',
  description: 'The tenant',
  parameters: none,
  execute: (_args, { context }) => toolSuccess(context.tenantId),
});
const needsLess = defineTool({
  name: 'tenant_id',
  description: 'Only the id',
  parameters: none,
  execute: (_args, { context }: ToolExecutionContext<{ tenantId: string }>) => toolSuccess(context.tenantId),
});
const plain = defineTool({
  name: 'plain',
  description: 'No context',
  parameters: none,
  execute: () => toolSuccess(),
});
const other = defineTool({
  name: 'other',
  description: 'Another context',
  parameters: none,
  execute: (_args, { context }: ToolExecutionContext<{ region: number }>) => toolSuccess(context.region),
});

describe('AgentBuilder<Context>', () => {
  it('builds a ChatClientAgent<Context> whose run takes that context', () => {
    const agent = new AgentBuilder<Tenant>('a')
      .chatClient(client)
      .withTools([whoami, needsLess, plain])
      .build();
    expectTypeOf(agent).toEqualTypeOf<ChatClientAgent<Tenant>>();
    void agent.run('hi', { context: { tenantId: 't', admin: false } });
    void agent.generate(undefined, { context: { tenantId: 't', admin: true }, approvals: [] });
    // @ts-expect-error the context is required when the agent's context type leaves out undefined
    void agent.run('hi');
    // @ts-expect-error and it must be of the agent's type
    void agent.run('hi', { context: { tenantId: 't' } });
  });

  it('accepts tools that read the agent context, less of it, or none', () => {
    new AgentBuilder<Tenant>('a').withTool(whoami).withTool(needsLess).withTool(plain);
    // @ts-expect-error a tool reading a context the agent does not have
    new AgentBuilder<Tenant>('a').withTool(other);
    // @ts-expect-error an agent without a context cannot run a tool that needs one
    new AgentBuilder('a').withTool(whoami);
    // @ts-expect-error one misfit in a list is enough
    new AgentBuilder<Tenant>('a').withTools([whoami, other]);
    const untyped: ITool[] = [plain];
    new AgentBuilder<Tenant>('a').withTools(untyped);
  });

  it('keeps the context optional for agents that declare none', () => {
    const agent = new AgentBuilder('a').chatClient(client).withTool(plain).build();
    expectTypeOf(agent).toEqualTypeOf<ChatClientAgent<unknown>>();
    void agent.run('hi');
    void agent.run('hi', { context: 'anything' });
  });

  it('lets an ITool list hold tools of any context type', () => {
    const tools: ITool[] = [whoami, needsLess, plain, other];
    expectTypeOf(tools).toEqualTypeOf<ITool[]>();
  });
});
