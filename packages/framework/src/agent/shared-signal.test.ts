import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { call, echoTool, type Harness, startHarness } from '../test-support/harness.js';
import { AgentBuilder } from './agent-builder.js';

let harness: Harness;
afterEach(() => harness?.close());

describe('one long-lived AbortSignal shared by many runs', () => {
  it('200 concurrent runs add no listener they do not remove, and Node warns of none', async () => {
    harness = await startHarness([]);
    harness.server.enqueue(
      ...Array.from({ length: 200 }, () => (request: { body?: Record<string, unknown> }) => {
        const messages = (request.body?.messages ?? []) as { role: string }[];
        return messages.at(-1)?.role === 'tool'
          ? { text: 'done' }
          : { toolCalls: [call(`c${messages.length}`, 'echo', { text: 'hi' })] };
      }),
      ...Array.from({ length: 200 }, () => ({ text: 'done' })),
    );
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(echoTool()).build();
    const controller = new AbortController();
    const { signal } = controller;
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const before = getEventListeners(signal, 'abort').length;
      let peak = before;
      const watcher = setInterval(() => {
        peak = Math.max(peak, getEventListeners(signal, 'abort').length);
      }, 1);
      const answers = await Promise.all(Array.from({ length: 200 }, () => agent.generate('go', { signal })));
      clearInterval(watcher);
      expect(answers.every((a) => a.finishReason === 'stop')).toBe(true);
      expect(getEventListeners(signal, 'abort').length).toBe(before);
      // Let a deferred warning reach the listener.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      console.log(`peak abort listeners on the shared signal: ${peak}`);
    } finally {
      process.off('warning', onWarning);
    }
  }, 60_000);
});
