import { createToolManifest, defineTool, type IContextProvider, toolSuccess } from '@raf/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import {
  call,
  drain,
  echoTool,
  type Harness,
  sentMessages,
  significant,
  startHarness,
} from '../test-support/harness.js';

let harness: Harness;
afterEach(() => harness?.close());

describe('rule 4: the tool loop', () => {
  it('runs tools injected by a provider when the agent has no static tools (workspace-only agents work)', async () => {
    harness = await startHarness([{ toolCalls: [call('c1', 'echo', { text: 'hi' })] }, { text: 'Echoed.' }]);
    const provider: IContextProvider = {
      name: 'ws',
      kind: 'workspace',
      injectsTools: true,
      onInvoking: () => ({ tools: [echoTool()] }),
    };
    const agent = new AgentBuilder('a').chatClient(harness.client).withContextProvider(provider).build();
    const updates = significant(await drain(agent.run('say hi')));
    expect(updates).toEqual([
      { type: 'tool-call-end', callId: 'c1', name: 'echo', arguments: '{"text":"hi"}' },
      { type: 'tool-called', callId: 'c1', name: 'echo', result: { ok: true, data: { echoed: 'hi' } } },
      { type: 'text-delta', delta: 'Echoed.' },
      { type: 'finish', reason: 'stop' },
    ]);
    // The tool result reaches the model as the JSON of the ToolResult, right after its call.
    expect(sentMessages(harness.server, 1).slice(-2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{"text":"hi"}' } }],
      },
      { role: 'tool', content: '{"ok":true,"data":{"echoed":"hi"}}', tool_call_id: 'c1' },
    ]);
  });

  it("keeps a turn's reasoning on the stored assistant tool-call message (DeepSeek needs it back)", async () => {
    harness = await startHarness([
      { reasoning: 'Need the echo tool.', toolCalls: [call('c1', 'echo', { text: 'hi' })] },
      { text: 'Done.' },
    ]);
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(echoTool()).build();
    const session = agent.createSession();
    await drain(agent.run('go', { session }));
    expect(session.messages[1]).toMatchObject({ role: 'assistant', reasoning: 'Need the echo tool.' });
  });

  it("passes a defineTool's parsed arguments to execute once, without parsing them again", async () => {
    harness = await startHarness([
      { toolCalls: [call('c1', 'measure', { text: 'four' })] },
      { text: 'Done.' },
    ]);
    const seen: unknown[] = [];
    // The transform's output (a number) would fail a second parse: one parse or the call fails.
    const measure = defineTool({
      name: 'measure',
      description: 'Length of a text',
      parameters: z.object({ text: z.string().transform((text) => text.length) }),
      execute: (args) => {
        seen.push(args);
        return toolSuccess(args.text);
      },
    });
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(measure).build();
    const response = await agent.generate('measure');
    expect(seen).toEqual([{ text: 4 }]);
    expect(response.toolResults[0]?.result).toEqual({ ok: true, data: 4 });
  });

  it('offers no tools when the agent has none', async () => {
    harness = await startHarness([{ text: 'plain' }]);
    const agent = new AgentBuilder('a').chatClient(harness.client).build();
    expect((await agent.generate('x')).text).toBe('plain');
    expect(harness.server.requests[0]?.body?.tools).toBeUndefined();
  });

  it('finishes with maxRounds after maxToolRounds rounds, without a dangling call', async () => {
    harness = await startHarness(
      Array.from({ length: 5 }, (_, i) => ({ toolCalls: [call(`c${i}`, 'echo', { text: String(i) })] })),
    );
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTool(echoTool())
      .maxToolRounds(3)
      .build();
    const session = agent.createSession();
    const updates = await drain(agent.run('loop', { session }));
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'maxRounds' });
    expect(harness.server.requests).toHaveLength(3);
    expect(session.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'c2' });
  });

  it('answers invalid arguments with a correction that carries the schema, without executing', async () => {
    let executed = 0;
    const tool = echoTool('echo', {});
    const original = tool.execute.bind(tool);
    tool.execute = (args, ctx) => {
      executed++;
      return original(args, ctx);
    };
    harness = await startHarness([{ toolCalls: [call('c1', 'echo', { txt: 5 })] }, { text: 'Sorry.' }]);
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(tool).build();
    const updates = await drain(agent.run('x'));
    expect(executed).toBe(0);
    const result = updates.find((u) => u.type === 'tool-called');
    expect(result).toMatchObject({ result: { ok: false } });
    const error = result?.type === 'tool-called' ? result.result.error : '';
    expect(error).toMatch(/^Invalid arguments for echo: .*text/);
    expect(error).toContain('Call it again with arguments matching this JSON Schema: {"type":"object"');
  });

  it('checks a plain ITool (no validator of its own) against its JSON Schema, also behind an approval wrapper', async () => {
    const { ApprovalRequiredTool } = await import('../approval/approval-required-tool.js');
    let executed = 0;
    const plain = {
      name: 'open',
      description: 'Open a path',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      execute: async () => {
        executed++;
        return { ok: true };
      },
    };
    harness = await startHarness([
      { toolCalls: [call('a', 'open', { file: 'x' }), call('b', 'guarded', { path: 7 })] },
      { text: 'ok' },
    ]);
    const guarded = new ApprovalRequiredTool({ ...plain, name: 'guarded' });
    const agent = new AgentBuilder('a').chatClient(harness.client).withTools([plain, guarded]).build();
    const results = (await drain(agent.run('x'))).filter((u) => u.type === 'tool-called');
    expect(executed).toBe(0);
    expect(results.map((u) => u.type === 'tool-called' && u.result.error)).toEqual([
      expect.stringMatching(/^Invalid arguments for open: .*path/),
      expect.stringMatching(/^Invalid arguments for guarded: path: /),
    ]);
  });

  it('runs parallel calls concurrently and sequential calls one at a time, results in call order', async () => {
    const log: string[] = [];
    let running = 0;
    let peak = 0;
    const slow = (name: string, ms: number, sequential = false) =>
      defineTool({
        name,
        description: name,
        parameters: z.object({ n: z.number() }),
        ...(sequential && { manifest: createToolManifest({ executionMode: 'sequential' }) }),
        execute: async ({ n }) => {
          running++;
          peak = Math.max(peak, running);
          log.push(`start ${name}${n}`);
          await new Promise((r) => setTimeout(r, ms));
          log.push(`end ${name}${n}`);
          running--;
          return toolSuccess(`${name}${n}`);
        },
      });
    harness = await startHarness([
      {
        toolCalls: [
          call('a', 'fetch', { n: 1 }),
          call('b', 'fetch', { n: 2 }),
          call('c', 'fetch', { n: 3 }),
          call('d', 'save', { n: 4 }),
          call('e', 'save', { n: 5 }),
        ],
      },
      { text: 'ok' },
    ]);
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTools([slow('fetch', 60), slow('save', 10, true)])
      .build();
    const updates = await drain(agent.run('x'));
    expect(peak).toBe(3);
    // The sequential calls start only after every earlier call ended, and never overlap.
    expect(log.slice(-4)).toEqual(['start save4', 'end save4', 'start save5', 'end save5']);
    expect(
      updates.filter((u) => u.type === 'tool-called').map((u) => u.type === 'tool-called' && u.callId),
    ).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(
      sentMessages(harness.server, 1)
        .filter((m) => m.role === 'tool')
        .map((m) => m.tool_call_id),
    ).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('stops a run that repeats the identical call more than 3 times in a row', async () => {
    harness = await startHarness(
      Array.from({ length: 6 }, (_, i) => ({ toolCalls: [call(`c${i}`, 'echo', { text: 'same' })] })),
    );
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(echoTool()).build();
    const updates = await drain(agent.run('x'));
    const results = updates.filter((u) => u.type === 'tool-called');
    expect(results).toHaveLength(4);
    expect(results[3]).toMatchObject({
      result: {
        ok: false,
        error: expect.stringMatching(/^Loop guard: echo was called with identical arguments 4 times/),
      },
    });
    expect(updates.at(-2)).toMatchObject({ type: 'warning', code: 'loop-guard' });
    expect(updates.at(-1)).toEqual({ type: 'finish', reason: 'other', rawReason: 'loopGuard' });
    expect(harness.server.requests).toHaveLength(4);
  });

  it('turns a thrown tool error into a Framework error result and an unknown tool into "not found"', async () => {
    const broken = defineTool({
      name: 'broken',
      description: 'throws',
      parameters: z.object({}),
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    harness = await startHarness([
      { toolCalls: [call('a', 'broken', {}), call('b', 'nope', {})] },
      { text: 'ok' },
    ]);
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(broken).build();
    const results = (await drain(agent.run('x'))).filter((u) => u.type === 'tool-called');
    expect(results.map((u) => u.type === 'tool-called' && u.result)).toEqual([
      { ok: false, error: 'Framework error: disk on fire' },
      { ok: false, error: "Tool 'nope' not found" },
    ]);
  });

  it("keeps the model's own finish reason (length) and sums usage over rounds", async () => {
    harness = await startHarness([
      {
        toolCalls: [call('a', 'echo', { text: 'x' })],
        usage: { promptTokens: 10, completionTokens: 2, totalTokens: 12 },
      },
      {
        text: 'cut',
        finishReason: 'length',
        usage: { promptTokens: 20, completionTokens: 5, totalTokens: 25 },
      },
    ]);
    const agent = new AgentBuilder('a').chatClient(harness.client).withTool(echoTool()).build();
    const response = await agent.generate('x');
    expect(response.finishReason).toBe('length');
    expect(response.usage).toEqual({ promptTokens: 30, completionTokens: 7, totalTokens: 37 });
  });
});
