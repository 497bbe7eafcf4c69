import { trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { defineTool } from '@raf/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { call, drain, echoTool, type Harness, startHarness } from '../test-support/harness.js';
import { RunTrace } from './run-trace.js';

let harness: Harness;
let exporter: InMemorySpanExporter;
let provider: TracerProvider;
beforeEach(() => {
  exporter = new InMemorySpanExporter();
  provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
});
afterEach(async () => {
  await harness?.close();
  await provider.shutdown();
  trace.disable();
});

const usage = { promptTokens: 11, completionTokens: 3, totalTokens: 14 };

async function spans(): Promise<ReadableSpan[]> {
  await provider.forceFlush();
  return [...exporter.getFinishedSpans()].sort(
    (a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1],
  );
}

/** The spans as an indented tree: each parent, then its children in start order. */
function shape(list: ReadableSpan[]): string[] {
  const ids = new Set(list.map((s) => s.spanContext().spanId));
  const lines: string[] = [];
  const walk = (parent: string | undefined, depth: number) => {
    for (const span of list) {
      const up = span.parentSpanContext?.spanId;
      if ((up && ids.has(up) ? up : undefined) !== parent) continue;
      lines.push(`${'  '.repeat(depth)}${span.name}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

const broken = defineTool({
  name: 'broken',
  description: 'throws',
  parameters: z.object({}),
  execute: () => {
    throw new Error('disk on fire');
  },
});

describe('OpenTelemetry spans (GenAI conventions)', () => {
  it('traces a run: invoke_agent, a chat span per model call, an execute_tool span per call', async () => {
    trace.setGlobalTracerProvider(provider);
    harness = await startHarness([
      { toolCalls: [call('c1', 'echo', { text: 'x' }), call('c2', 'broken', {})], usage },
      { text: 'done', usage },
    ]);
    const agent = new AgentBuilder('helper')
      .description('Helps.')
      .chatClient(harness.client)
      .withTools([echoTool(), broken])
      .build();
    const session = agent.createSession('s-7');
    await drain(agent.run('go', { session }));
    const list = await spans();
    expect(shape(list)).toEqual([
      'invoke_agent helper',
      '  chat mock',
      '  execute_tool echo',
      '  execute_tool broken',
      '  chat mock',
    ]);
    const [run, chat, echo, fail] = [
      'invoke_agent helper',
      'chat mock',
      'execute_tool echo',
      'execute_tool broken',
    ].map((name) => list.find((s) => s.name === name));
    expect(run?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'helper',
      'gen_ai.agent.description': 'Helps.',
      'gen_ai.request.model': 'mock',
      'gen_ai.conversation.id': 's-7',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 22,
      'gen_ai.usage.output_tokens': 6,
    });
    expect(chat?.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'mock',
      'gen_ai.response.finish_reasons': ['tool_calls'],
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 3,
    });
    expect(echo?.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'echo',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': 'Echoes its text (echo)',
    });
    expect(echo?.status.code).toBe(0);
    // A thrown error is recorded on its tool's span, which is marked as failed.
    expect(fail?.status).toEqual({ code: 2, message: 'Framework error: disk on fire' });
    expect(fail?.events.map((e) => e.name)).toEqual(['exception']);
    expect(fail?.attributes['error.type']).toBe('Error');
  });

  it('records tool arguments and results only with recordContent, and a timeout as an error', async () => {
    harness = await startHarness([
      { toolCalls: [call('c1', 'echo', { text: 'secret' }), call('c2', 'hang', {})] },
      { text: 'ok' },
    ]);
    const hang = defineTool({
      name: 'hang',
      description: 'never ends',
      parameters: z.object({}),
      execute: () => new Promise(() => {}),
    });
    const agent = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTools([echoTool(), hang])
      .toolTimeout(30)
      .withTelemetry({ tracer: provider.getTracer('test'), recordContent: true })
      .build();
    await drain(agent.run('go'));
    const list = await spans();
    const echo = list.find((s) => s.name === 'execute_tool echo');
    const timedOut = list.find((s) => s.name === 'execute_tool hang');
    expect(echo?.attributes['gen_ai.tool.call.arguments']).toBe('{"text":"secret"}');
    expect(echo?.attributes['gen_ai.tool.call.result']).toBe('{"ok":true,"data":{"echoed":"secret"}}');
    expect(timedOut?.attributes['error.type']).toBe('timeout');
    expect(timedOut?.status).toEqual({ code: 2, message: 'Tool hang timed out after 0.03 s' });
  });

  it('traces the one model call of an agent without tools, and a model error', async () => {
    harness = await startHarness([{ status: 400, errorBody: { error: { message: 'bad request' } } }]);
    const agent = new AgentBuilder('plain')
      .chatClient(harness.client)
      .withTelemetry({ tracer: provider.getTracer('test') })
      .build();
    await drain(agent.run('hi'));
    const list = await spans();
    expect(shape(list)).toEqual(['invoke_agent plain', '  chat mock']);
    for (const span of list) {
      expect(span.status.code).toBe(2);
      expect(span.attributes['error.type']).toBe('RAF_CHAT_CLIENT');
    }
    expect(
      list.find((s) => s.name === 'invoke_agent plain')?.attributes['gen_ai.response.finish_reasons'],
    ).toEqual(['other']);
  });

  it('makes no spans when tracing is off or no tracer provider is registered', async () => {
    harness = await startHarness([{ toolCalls: [call('c1', 'echo', { text: 'x' })] }, { text: 'ok' }]);
    const off = new AgentBuilder('a')
      .chatClient(harness.client)
      .withTool(echoTool())
      .withTelemetry({ tracer: provider.getTracer('test'), enabled: false })
      .build();
    await drain(off.run('go'));
    expect(await spans()).toEqual([]);
    // Without a registered provider the global tracer is a no-op: the run is not traced at all.
    expect(RunTrace.startAgent({}, { name: 'a', model: 'm' }, 's')).toBeUndefined();
  });
});
