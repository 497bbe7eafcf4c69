import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import type { FinishReason, JSONValue, ModelOptions, ToolResult, Usage } from '@raf/core';
import { getErrorMessage } from '@raf/core';
import { lazyRequire } from '../lazy-require.js';

// Loaded by the first run that may trace, not on import: building or inspecting an agent never traces.
const otel = lazyRequire<typeof import('@opentelemetry/api')>('@opentelemetry/api');

// Where the API (1.x) keeps what `trace.setGlobalTracerProvider` registered. While it holds no
// tracer provider the global tracer records nothing, and a run need not load the API to learn so.
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');

function mayRecord(options: TelemetryOptions): boolean {
  if (options.enabled === false) return false;
  if (options.tracer) return true;
  return (globalThis as { [OTEL_GLOBAL]?: { trace?: unknown } })[OTEL_GLOBAL]?.trace !== undefined;
}

/** How an agent reports OpenTelemetry spans (GenAI semantic conventions). */
export interface TelemetryOptions {
  /** `false` turns tracing off for this agent even when a tracer provider is registered. */
  enabled?: boolean;
  /** Record tool arguments and results on `execute_tool` spans (off: they may hold private data). */
  recordContent?: boolean;
  /** The tracer to use; default: the global provider's `@raf/framework` tracer (a no-op until one is registered). */
  tracer?: Tracer;
}

function tracerOf(options: TelemetryOptions): Tracer {
  // Asked per run, not kept: a provider registered (or replaced) later is honoured.
  return options.tracer ?? otel().trace.getTracer('@raf/framework');
}

// The OpenAI spellings the GenAI conventions show for `gen_ai.response.finish_reasons`.
const FINISH_NAMES: Partial<Record<FinishReason, string>> = {
  toolCalls: 'tool_calls',
  contentFilter: 'content_filter',
  awaitingApproval: 'awaiting_approval',
  maxRounds: 'max_rounds',
};

function usageAttributes(usage: Usage | undefined): Attributes {
  return usage
    ? {
        'gen_ai.usage.input_tokens': usage.promptTokens,
        'gen_ai.usage.output_tokens': usage.completionTokens,
      }
    : {};
}

function requestAttributes(options: ModelOptions | undefined): Attributes {
  const attributes: Attributes = {};
  if (!options) return attributes;
  if (options.temperature !== undefined) attributes['gen_ai.request.temperature'] = options.temperature;
  if (options.maxTokens !== undefined) attributes['gen_ai.request.max_tokens'] = options.maxTokens;
  if (options.topP !== undefined) attributes['gen_ai.request.top_p'] = options.topP;
  if (options.seed !== undefined) attributes['gen_ai.request.seed'] = options.seed;
  return attributes;
}

/** What a finished model call reports on its `chat` span. */
export interface ChatOutcome {
  finishReason?: FinishReason;
  usage?: Usage;
  responseId?: string;
  responseModel?: string;
  /** The `error` update's code and message, or a thrown error. */
  error?: { type: string; message: string } | unknown;
}

/** The spans of one run: a parent span (the agent's `invoke_agent`, or none) and its children. */
export class RunTrace {
  private constructor(
    private readonly tracer: Tracer,
    private readonly parent: Context,
    private readonly recordContent: boolean,
  ) {}

  /**
   * Starts `invoke_agent <name>` when a tracer records; `undefined` (and nothing else to pay for
   * the rest of the run) when none does.
   */
  static startAgent(
    options: TelemetryOptions,
    agent: { name: string; description?: string | undefined; model: string; provider?: string | undefined },
    conversationId: string,
  ): { span: Span; trace: RunTrace } | undefined {
    if (!mayRecord(options)) return undefined;
    const api = otel();
    const tracer = tracerOf(options);
    const attributes: Attributes = {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': agent.name,
      'gen_ai.request.model': agent.model,
      'gen_ai.conversation.id': conversationId,
    };
    if (agent.description) attributes['gen_ai.agent.description'] = agent.description;
    if (agent.provider) attributes['gen_ai.provider.name'] = agent.provider;
    const span = tracer.startSpan(`invoke_agent ${agent.name}`, {
      kind: api.SpanKind.INTERNAL,
      attributes,
    });
    if (!span.isRecording()) {
      span.end();
      return undefined;
    }
    const parent = api.trace.setSpan(api.context.active(), span);
    return { span, trace: new RunTrace(tracer, parent, options.recordContent === true) };
  }

  /** Ends the agent's span with the run's outcome. */
  static endAgent(
    span: Span,
    finish: FinishReason | undefined,
    usage: Usage | undefined,
    error: unknown,
  ): void {
    const api = otel();
    span.setAttributes(usageAttributes(usage));
    if (finish) span.setAttribute('gen_ai.response.finish_reasons', [FINISH_NAMES[finish] ?? finish]);
    if (error !== undefined && finish !== 'cancelled') {
      if (error instanceof Error) span.recordException(error);
      span.setAttribute('error.type', errorType(error));
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: getErrorMessage(error) });
    }
    span.end();
  }

  startChat(model: string, provider: string | undefined, options: ModelOptions | undefined): Span {
    const attributes: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': model,
      ...requestAttributes(options),
    };
    if (provider) attributes['gen_ai.provider.name'] = provider;
    return this.tracer.startSpan(`chat ${model}`, { kind: otel().SpanKind.CLIENT, attributes }, this.parent);
  }

  endChat(span: Span, outcome: ChatOutcome): void {
    span.setAttributes(usageAttributes(outcome.usage));
    if (outcome.finishReason) {
      const reason = outcome.finishReason;
      span.setAttribute('gen_ai.response.finish_reasons', [FINISH_NAMES[reason] ?? reason]);
    }
    if (outcome.responseId) span.setAttribute('gen_ai.response.id', outcome.responseId);
    if (outcome.responseModel) span.setAttribute('gen_ai.response.model', outcome.responseModel);
    if (outcome.error !== undefined) fail(span, outcome.error);
    span.end();
  }

  startTool(name: string, callId: string, description: string, args: JSONValue | undefined): Span {
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
      'gen_ai.tool.call.id': callId,
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.description': description,
    };
    if (this.recordContent) attributes['gen_ai.tool.call.arguments'] = JSON.stringify(args ?? {});
    return this.tracer.startSpan(
      `execute_tool ${name}`,
      { kind: otel().SpanKind.INTERNAL, attributes },
      this.parent,
    );
  }

  /** Runs `work` with the tool's span active, so spans the tool starts become its children. */
  withSpan<T>(span: Span, work: () => T): T {
    const api = otel();
    return api.context.with(api.trace.setSpan(this.parent, span), work);
  }

  endTool(
    span: Span,
    result: ToolResult,
    kind: 'ok' | 'failed' | 'timeout' | 'cancelled',
    thrown?: unknown,
  ): void {
    if (this.recordContent) span.setAttribute('gen_ai.tool.call.result', JSON.stringify(result));
    if (thrown instanceof Error) span.recordException(thrown);
    if (kind !== 'ok') {
      span.setAttribute(
        'error.type',
        kind === 'failed' ? (thrown === undefined ? 'tool_error' : errorType(thrown)) : kind,
      );
      span.setStatus({ code: otel().SpanStatusCode.ERROR, message: result.error ?? kind });
    }
    span.end();
  }
}

function errorType(error: unknown): string {
  if (error && typeof error === 'object') {
    const { code, name } = error as { code?: unknown; name?: unknown };
    if (typeof code === 'string') return code;
    if (typeof name === 'string') return name;
  }
  return '_OTHER';
}

function fail(span: Span, error: unknown): void {
  if (error instanceof Error) {
    span.recordException(error);
    span.setAttribute('error.type', errorType(error));
    span.setStatus({ code: otel().SpanStatusCode.ERROR, message: error.message });
    return;
  }
  const { type, message } = error as { type: string; message: string };
  span.setAttribute('error.type', type);
  span.setStatus({ code: otel().SpanStatusCode.ERROR, message });
}
