import { systemMessage, userMessage } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentBuilder } from '../agent/agent-builder.js';
import { call, drain, echoTool, type Harness, sentMessages, startHarness } from '../test-support/harness.js';
import type { StepResult, ToolEndEvent, ToolStartEvent } from './step-hooks.js';
import { hasToolCall, stepCountIs } from './step-hooks.js';

let harness: Harness;
afterEach(() => harness?.close());

const usage = { promptTokens: 10, completionTokens: 2, totalTokens: 12 };

describe('step hooks', () => {
  it('prepareStep changes model options, active tools and messages between tool rounds', async () => {
    harness = await startHarness([
      { toolCalls: [call('c1', 'echo', { text: 'a' })] },
      { toolCalls: [call('c2', 'other', { text: 'b' })] },
      { text: 'done' },
    ]);
    const seen: { stepNumber: number; messages: number; tools: string[] }[] = [];
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .instructions('Be brief.')
      .withTools([echoTool('echo'), echoTool('other')])
      .withHooks({
        prepareStep: ({ stepNumber, messages, tools }) => {
          seen.push({ stepNumber, messages: messages.length, tools: tools.map((t) => t.name) });
          if (stepNumber === 1) {
            // Compression between rounds: keep the system message and a summary.
            return {
              modelOptions: { temperature: 0.1 },
              activeTools: ['echo'],
              messages: [systemMessage('Be brief.'), userMessage('(earlier: echo was called)')],
            };
          }
          return undefined;
        },
      })
      .build();
    const session = agent.createSession();
    const response = await agent.generate('go', { session });
    expect(seen).toEqual([
      { stepNumber: 0, messages: 2, tools: ['echo', 'other'] },
      { stepNumber: 1, messages: 4, tools: ['echo', 'other'] },
      { stepNumber: 2, messages: 4, tools: ['echo', 'other'] },
    ]);
    const second = harness.server.requests[1]?.body ?? {};
    expect(second.temperature).toBe(0.1);
    expect((second.tools as { function: { name: string } }[]).map((t) => t.function.name)).toEqual(['echo']);
    expect(sentMessages(harness.server, 1)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: '(earlier: echo was called)' },
    ]);
    // The step after keeps building on the replaced conversation, with the run's options again.
    expect(sentMessages(harness.server, 2).map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
    ]);
    expect(harness.server.requests[2]?.body?.temperature).toBeUndefined();
    // 'other' was not offered in step 1: its call is answered as unknown, not run.
    expect(response.toolResults[1]?.result).toEqual({ ok: false, error: "Tool 'other' not found" });
    // The session keeps every message.
    expect(session.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'assistant',
    ]);
  });

  it('reports each step, and each tool start and end, with durations', async () => {
    harness = await startHarness([
      { text: 'Looking.', toolCalls: [call('c1', 'echo', { text: 'x' })], usage },
      { text: 'Found x.', usage },
    ]);
    const steps: StepResult[] = [];
    const events: (ToolStartEvent | ToolEndEvent)[] = [];
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTool(echoTool())
      .withHooks({
        onStepFinish: (step) => {
          steps.push(step);
        },
        onToolStart: (event) => events.push(event),
        onToolEnd: (event) => events.push(event),
      })
      .build();
    await drain(agent.run('go'));
    expect(steps).toEqual([
      {
        stepNumber: 0,
        text: 'Looking.',
        toolCalls: [{ id: 'c1', name: 'echo', arguments: '{"text":"x"}' }],
        toolResults: [{ callId: 'c1', name: 'echo', result: { ok: true, data: { echoed: 'x' } } }],
        usage,
        finishReason: 'toolCalls',
        durationMs: expect.any(Number),
      },
      {
        stepNumber: 1,
        text: 'Found x.',
        toolCalls: [],
        toolResults: [],
        usage,
        finishReason: 'stop',
        durationMs: expect.any(Number),
      },
    ]);
    expect(steps.every((s) => s.durationMs >= 0)).toBe(true);
    expect(events).toEqual([
      { callId: 'c1', name: 'echo', args: { text: 'x' } },
      {
        callId: 'c1',
        name: 'echo',
        result: { ok: true, data: { echoed: 'x' } },
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('turns a failing event hook into a warning and lets the run go on', async () => {
    harness = await startHarness([{ toolCalls: [call('c1', 'echo', { text: 'x' })] }, { text: 'ok' }]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTool(echoTool())
      .withHooks({
        onToolStart: () => {
          throw new Error('logger down');
        },
        onStepFinish: () => {
          throw new Error('metrics down');
        },
      })
      .build();
    const response = await agent.generate('go');
    expect(response.text).toBe('ok');
    expect(response.toolResults[0]?.result.ok).toBe(true);
    expect(response.warnings).toEqual([
      'onToolStart hook failed: logger down',
      'onStepFinish hook failed: metrics down',
      'onStepFinish hook failed: metrics down',
    ]);
  });
});

describe('stop conditions', () => {
  it('stepCountIs(n) ends the run after the n-th step that ran tools', async () => {
    harness = await startHarness(
      Array.from({ length: 5 }, (_, i) => ({ toolCalls: [call(`c${i}`, 'echo', { text: `${i}` })] })),
    );
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTool(echoTool())
      .stopWhen(stepCountIs(2))
      .build();
    const updates = await drain(agent.run('go'));
    expect(updates.filter((u) => u.type === 'tool-called')).toHaveLength(2);
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'other', rawReason: 'stopCondition' });
    expect(harness.server.requests).toHaveLength(2);
  });

  it('hasToolCall(name) stops after the step that called it; conditions compose (any stops)', async () => {
    harness = await startHarness([
      { toolCalls: [call('c1', 'echo', { text: 'a' })] },
      { toolCalls: [call('c2', 'finish_task', { text: 'b' })] },
      { text: 'never asked' },
    ]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTools([echoTool('echo'), echoTool('finish_task')])
      .stopWhen(stepCountIs(10), hasToolCall('finish_task'))
      .build();
    const updates = await drain(agent.run('go'));
    expect(
      updates.filter((u) => u.type === 'tool-called').map((u) => u.type === 'tool-called' && u.name),
    ).toEqual(['echo', 'finish_task']);
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'other', rawReason: 'stopCondition' });
    expect(harness.server.requests).toHaveLength(2);
  });
});
