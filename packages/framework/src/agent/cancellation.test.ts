import { defineTool, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { drain, type Harness, startHarness } from '../test-support/harness.js';
import { AgentBuilder } from './agent-builder.js';

let harness: Harness;
afterEach(() => harness?.close());

function waitingTool(name: string, honoursSignal: boolean, seen: { aborted: boolean; started: number }) {
  return defineTool({
    name,
    description: name,
    parameters: z.object({}),
    execute: (_args, { signal }) =>
      new Promise((resolve) => {
        seen.started++;
        const timer = setTimeout(() => resolve(toolSuccess('late')), 5_000);
        if (honoursSignal) {
          signal.addEventListener('abort', () => {
            seen.aborted = true;
            clearTimeout(timer);
            resolve(toolSuccess('stopped'));
          });
        }
      }),
  });
}

describe('cancellation', () => {
  it('aborting while the model streams closes the HTTP request and finishes with cancelled', async () => {
    harness = await startHarness([{ text: 'a b c d e f g h i j', chunkDelayMs: 40 }]);
    const agent = new AgentBuilder('a').chatClient(harness.client).build();
    const session = agent.createSession();
    const controller = new AbortController();
    const updates = [];
    for await (const update of agent.run('talk', { session, signal: controller.signal })) {
      updates.push(update);
      if (update.type === 'text-delta') controller.abort();
    }
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'cancelled' });
    await new Promise((r) => setTimeout(r, 50));
    expect(harness.server.requests[0]?.closedEarly).toBe(true);
    expect(session.messages).toEqual([]);
  });

  it('aborting while tools run hands them the signal, and leaves no call without a result', async () => {
    harness = await startHarness([
      {
        toolCalls: [
          { id: 'w1', name: 'wait', arguments: {} },
          { id: 's1', name: 'stubborn', arguments: {} },
        ],
      },
    ]);
    const polite = { aborted: false, started: 0 };
    const stubborn = { aborted: false, started: 0 };
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTools([waitingTool('wait', true, polite), waitingTool('stubborn', false, stubborn)])
      .build();
    const session = agent.createSession();
    const controller = new AbortController();
    const started = performance.now();
    const run = drain(agent.run('work', { session, signal: controller.signal }));
    while (polite.started === 0 || stubborn.started === 0) await new Promise((r) => setTimeout(r, 5));
    controller.abort();
    const updates = await run;
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(polite.aborted).toBe(true);
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'cancelled' });
    expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool']);
    expect(session.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual([
      '{"ok":false,"error":"Agent run cancelled"}',
      '{"ok":false,"error":"Agent run cancelled"}',
    ]);
    expect(harness.server.requests).toHaveLength(1);
  });

  it('an already aborted signal never calls the model', async () => {
    harness = await startHarness([{ text: 'x' }]);
    const agent = new AgentBuilder('a').chatClient(harness.client).build();
    expect(await drain(agent.run('x', { signal: AbortSignal.abort() }))).toEqual([
      { type: 'finish', reason: 'cancelled' },
    ]);
    expect(harness.server.requests).toHaveLength(0);
  });
});
