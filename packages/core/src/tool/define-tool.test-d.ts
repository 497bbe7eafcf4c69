import { describe, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { defineTool } from './define-tool.js';
import type { ITool, ToolExecutionContext } from './tool.js';
import { toolSuccess } from './tool-result.js';

interface AppContext {
  userId: string;
  role: 'admin' | 'user';
}

const parameters = z.object({ id: z.number() });

describe('defineTool run context types', () => {
  it('types ctx.context from the second type argument', () => {
    const tool = defineTool<typeof parameters, AppContext>({
      name: 'lookup',
      description: 'Look an item up',
      parameters,
      requiresApproval: (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ id: number } | undefined>();
        expectTypeOf(ctx?.context).toEqualTypeOf<AppContext | undefined>();
        return ctx?.context.role !== 'admin';
      },
      execute: ({ id }, ctx) => {
        expectTypeOf(id).toEqualTypeOf<number>();
        expectTypeOf(ctx.context).toEqualTypeOf<AppContext>();
        expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
        expectTypeOf(ctx.sessionId).toEqualTypeOf<string | undefined>();
        return toolSuccess({ id, user: ctx.context.userId });
      },
    });
    expectTypeOf(tool).toEqualTypeOf<ITool<unknown, AppContext>>();
  });

  it('infers the context type from an annotated execute parameter', () => {
    const tool = defineTool({
      name: 'lookup',
      description: 'Look an item up',
      parameters,
      execute: ({ id }, { context }: ToolExecutionContext<AppContext>) =>
        toolSuccess({ id, user: context.userId }),
    });
    expectTypeOf(tool).toEqualTypeOf<ITool<unknown, AppContext>>();
  });

  it('leaves the context unknown and optional when the tool names none', () => {
    const tool = defineTool({
      name: 'plain',
      description: 'No context',
      parameters,
      execute: (_args, ctx) => {
        expectTypeOf(ctx.context).toEqualTypeOf<unknown>();
        return toolSuccess();
      },
    });
    expectTypeOf(tool).toEqualTypeOf<ITool<unknown, unknown>>();
    // Called by hand, a context-free tool needs only a signal and a call id.
    void tool.execute({ id: 1 }, { signal: new AbortController().signal, callId: 'c1' });
  });

  it('requires the context when calling a typed tool by hand', () => {
    const tool = defineTool<typeof parameters, AppContext>({
      name: 'typed',
      description: 'Needs a user',
      parameters,
      execute: (_args, { context }) => toolSuccess(context.userId),
    });
    const signal = new AbortController().signal;
    // @ts-expect-error the run context is missing
    void tool.execute({ id: 1 }, { signal, callId: 'c1' });
    void tool.execute({ id: 1 }, { signal, callId: 'c1', context: { userId: 'u', role: 'user' } });
  });

  it('lets typed tools join a list of plain tools', () => {
    const typed = defineTool<typeof parameters, AppContext>({
      name: 'typed',
      description: 'Needs a user',
      parameters,
      execute: () => toolSuccess(),
    });
    const list: ITool[] = [typed];
    expectTypeOf(list).toEqualTypeOf<ITool[]>();
  });
});
