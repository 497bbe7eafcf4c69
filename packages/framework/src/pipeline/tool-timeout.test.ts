import { defineTool, TimeoutError, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import {
  call,
  drain,
  type Harness,
  sentMessages,
  significant,
  startHarness,
} from '../test-support/harness.js';
import { DEFAULT_TOOL_TIMEOUT_MS } from './tool-timeouts.js';

let harness: Harness;
afterEach(() => harness?.close());

/** A tool that waits until its signal fires (or forever, when it ignores it). */
function hangingTool(
  name: string,
  seen: { reason?: unknown },
  options: { ignoreSignal?: boolean; timeoutMs?: number } = {},
) {
  return defineTool({
    name,
    description: 'never finishes on its own',
    parameters: z.object({}),
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    execute: (_args, { signal }) =>
      new Promise((resolve) => {
        if (options.ignoreSignal) return; // a tool that never settles
        signal.addEventListener('abort', () => {
          seen.reason = signal.reason;
          resolve(toolSuccess('late'));
        });
      }),
  });
}

describe('per-tool timeouts', () => {
  it('answers a call that outlives its timeout with a timeout error, aborts its signal, and goes on', async () => {
    harness = await startHarness([{ toolCalls: [call('c1', 'hang', {})] }, { text: 'Timed-out.' }]);
    const seen: { reason?: unknown } = {};
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTool(hangingTool('hang', seen))
      .toolTimeout(50)
      .build();
    const started = Date.now();
    const updates = significant(await drain(agent.run('go')));
    expect(updates).toEqual([
      { type: 'tool-call-end', callId: 'c1', name: 'hang', arguments: '{}' },
      {
        type: 'tool-called',
        callId: 'c1',
        name: 'hang',
        result: { ok: false, error: 'Tool hang timed out after 0.05 s' },
      },
      { type: 'text-delta', delta: 'Timed-out.' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(TimeoutError.isInstance(seen.reason)).toBe(true);
    expect(seen.reason).toMatchObject({ phase: 'tool', timeoutMs: 50 });
    // The model reads the timeout as the call's result.
    expect(sentMessages(harness.server, 1).at(-1)).toEqual({
      role: 'tool',
      content: '{"ok":false,"error":"Tool hang timed out after 0.05 s"}',
      tool_call_id: 'c1',
    });
  });

  it('times out a tool that ignores its signal', async () => {
    harness = await startHarness([{ toolCalls: [call('c1', 'deaf', {})] }, { text: 'ok' }]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTool(hangingTool('deaf', {}, { ignoreSignal: true }))
      .toolTimeout(50)
      .build();
    const response = await agent.generate('go');
    expect(response.toolResults[0]?.result).toEqual({ ok: false, error: 'Tool deaf timed out after 0.05 s' });
    expect(response.text).toBe('ok');
  });

  it("takes a tool's manifest timeout over the default, and a per-tool setting over both", async () => {
    harness = await startHarness([
      { toolCalls: [call('c1', 'own', {}), call('c2', 'named', {}), call('c3', 'fast', {})] },
      { text: 'ok' },
    ]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTools([
        hangingTool('own', {}, { timeoutMs: 40 }),
        hangingTool('named', {}, { timeoutMs: 60_000 }),
        defineTool({
          name: 'fast',
          description: 'quick',
          parameters: z.object({}),
          execute: async () => {
            await new Promise((r) => setTimeout(r, 30));
            return toolSuccess('done');
          },
        }),
      ])
      .toolTimeout(60_000)
      .toolTimeout(70, 'named')
      .build();
    const response = await agent.generate('go');
    expect(response.toolResults.map((r) => r.result)).toEqual([
      { ok: false, error: 'Tool own timed out after 0.04 s' },
      { ok: false, error: 'Tool named timed out after 0.07 s' },
      { ok: true, data: 'done' },
    ]);
  });

  it('defaults to 120 s and refuses a timeout that is not a positive number', () => {
    expect(() => new AgentBuilder('a').toolTimeout(0)).toThrow(/tool timeout must be a positive number/);
    expect(() => new AgentBuilder('a').toolTimeout(Number.NaN, 'x')).toThrow(/timeout of tool 'x'/);
    expect(() =>
      defineTool({
        name: 'x',
        description: '',
        parameters: z.object({}),
        timeoutMs: -1,
        execute: () => toolSuccess(),
      }),
    ).toThrow(/timeoutMs/);
    expect(DEFAULT_TOOL_TIMEOUT_MS).toBe(120_000);
  });
});
