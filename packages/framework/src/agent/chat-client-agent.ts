import {
  type AgentResponse,
  type AgentResponseUpdate,
  collectAgentResponse,
  type IChatClient,
  type IContextProvider,
  type ITool,
} from '@raf/core';
import { flattenBatches } from '@raf/core/internal';
import type * as z from 'zod';
import type { LoopHooks, StopCondition } from '../pipeline/step-hooks.js';
import type { ToolTimeouts } from '../pipeline/tool-timeouts.js';
import type { InMemoryHistoryProvider } from '../providers/in-memory-history-provider.js';
import type { AgentCompression } from '../run/prompt.js';
import { AgentTools } from '../run/run-tools.js';
import { type AgentRuntime, runAgent } from '../run/runner.js';
import {
  collectStructured,
  type OutputFailure,
  type OutputSpec,
  withStructuredOutput,
} from '../run/structured-output.js';
import type { AgentGovernance } from '../runtime-policy/governance-view.js';
import { AgentSession } from '../sessions/agent-session.js';
import type { TelemetryOptions } from '../telemetry/run-trace.js';
import type { AgentInput, AgentRunArgs, AgentRunOptions } from './agent-run-options.js';

export type { AgentCompression } from '../run/prompt.js';

export interface ChatClientAgentConfig {
  name: string;
  description?: string;
  instructions?: string;
  /** The model: a leaf client, or one in model-level decorators (each model call passes them). */
  chatClient: IChatClient;
  tools: readonly ITool[];
  history: InMemoryHistoryProvider;
  /** Declared providers in order (the history provider is not among them). */
  contextProviders: readonly IContextProvider[];
  maxToolRounds: number;
  /** Identical consecutive calls allowed before the loop guard stops the run. */
  maxIdenticalCalls: number;
  /** Each tool call's time limit (by tool name, the tool's manifest, the agent's default). */
  timeouts: ToolTimeouts;
  hooks?: LoopHooks;
  stopWhen?: readonly StopCondition[];
  compression?: AgentCompression;
  /** Spans of each run (`invoke_agent`, `chat`, `execute_tool`); a no-op without a registered tracer. */
  telemetry?: TelemetryOptions;
  /** Tool governance, read before each run (a store is read again, so changes apply at once). */
  governance?: AgentGovernance;
  /** `outputSchema`: every run asks for a structured answer (a run's `output` wins). */
  output?: OutputSpec;
}

/** Closes every object that has a `close()`, each once; the first failure is thrown after all tried. */
export async function closeAll(things: readonly unknown[]): Promise<void> {
  const closable = [...new Set(things)].filter(
    (t): t is { close(): unknown } => typeof (t as { close?: unknown } | null)?.close === 'function',
  );
  const settled = await Promise.allSettled(closable.map(async (t) => t.close()));
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * An agent: history first, then the declared context providers in order, then the model and its
 * tools, step after step (`runAgent`). `run` streams updates and always ends with one `finish`; a
 * paused run (approval) lives in the session, so it can be resumed later, in another process.
 * `Context` is the type of the run context its tools receive (`agent.run(input, { context })`).
 */
export class ChatClientAgent<Context = unknown> {
  readonly name: string;
  readonly description: string | undefined;
  readonly instructions: string | undefined;
  readonly chatClient: IChatClient;
  readonly maxToolRounds: number;
  private readonly runtime: AgentRuntime;
  private readonly config: ChatClientAgentConfig;
  private closing: Promise<void> | undefined;

  constructor(config: ChatClientAgentConfig) {
    this.config = config;
    this.name = config.name;
    this.description = config.description;
    this.instructions = config.instructions;
    this.chatClient = config.chatClient;
    this.maxToolRounds = config.maxToolRounds;
    const stopWhen = config.stopWhen && config.stopWhen.length > 0 ? config.stopWhen : undefined;
    const hooks = config.hooks;
    this.runtime = {
      name: config.name,
      description: config.description,
      instructions: config.instructions,
      client: config.chatClient,
      history: config.history,
      providers: [config.history, ...config.contextProviders],
      telemetry: config.telemetry ?? {},
      tools: new AgentTools(config.tools),
      maxToolRounds: config.maxToolRounds,
      maxIdenticalCalls: config.maxIdenticalCalls,
      timeouts: config.timeouts,
      // Unset hooks cost nothing: an empty object is no hooks.
      hooks:
        hooks && (hooks.prepareStep || hooks.onStepFinish || hooks.onToolStart || hooks.onToolEnd)
          ? hooks
          : undefined,
      stopWhen,
      compression: config.compression,
      governance: config.governance,
    };
  }

  /**
   * The same agent (its tools, providers, history and settings, shared) with its model client
   * wrapped: every model call of its runs goes through `wrap`'s client, outside the decorators
   * the builder added. For a wrapper that must see each model call from outside the loop (a
   * durable runner's steps); the agent itself is unchanged.
   */
  withChatClient(wrap: (client: IChatClient) => IChatClient): ChatClientAgent<Context> {
    return new ChatClientAgent<Context>({ ...this.config, chatClient: wrap(this.config.chatClient) });
  }

  /** Providers in execution order: the history provider first. */
  get contextProviders(): readonly IContextProvider[] {
    return this.runtime.providers;
  }

  get tools(): readonly ITool[] {
    return this.config.tools;
  }

  /** The governance this agent runs under (global source and its own `toolPolicy`), if any. */
  get governance(): AgentGovernance | undefined {
    return this.config.governance;
  }

  /**
   * Closes what the agent holds: each context provider with a `close()` (MCP servers, the
   * sub-agents' worker pool, a plugin's resources), once, all of them even when one fails (the
   * first failure is thrown after). The chat client is the caller's and stays open. Also
   * `await using agent = …` (`Symbol.asyncDispose`).
   */
  close(): Promise<void> {
    this.closing ??= closeAll(this.runtime.providers);
    return this.closing;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  createSession(id?: string): AgentSession {
    return new AgentSession(id);
  }

  run(input: AgentInput, ...args: AgentRunArgs<Context>): AsyncIterable<AgentResponseUpdate> {
    return flattenBatches(this.batches(input, args[0] ?? {}));
  }

  // The one place a run meets its output schema: around the whole run, the runner untouched.
  private batches(
    input: AgentInput,
    options: AgentRunOptions<Context>,
    failure?: { last?: OutputFailure },
  ): AsyncIterable<readonly AgentResponseUpdate[]> {
    const output = options.output ?? this.config.output;
    const runOnce = (i: AgentInput, o: AgentRunOptions<unknown>) => runAgent(this.runtime, i, o);
    if (output === undefined) return runOnce(input, options as AgentRunOptions<unknown>);
    return withStructuredOutput(output, runOnce, input, options as AgentRunOptions<unknown>, failure);
  }

  /**
   * Continues the session's interrupted turn (a crash between a tool call and its result): calls
   * whose result was kept are not run again; a call in doubt runs again only when its tool is
   * `idempotent`, else the model reads that it was interrupted. Same as `run(undefined, options)`.
   */
  resume(...args: AgentRunArgs<Context>): AsyncIterable<AgentResponseUpdate> {
    return this.run(undefined, ...args);
  }

  /**
   * Runs to the end and returns the collected response (throws `StreamFailedError` on an error
   * update). With `output` (a zod schema) the response's `output` is the typed, validated answer;
   * no matching answer after one repair throws `OutputError`.
   */
  generate<T>(
    input: AgentInput,
    options: AgentRunOptions<Context> & { output: z.ZodType<T> },
  ): Promise<AgentResponse & { output: T }>;
  generate(input: AgentInput, ...args: AgentRunArgs<Context>): Promise<AgentResponse>;
  generate(input: AgentInput, given?: AgentRunOptions<Context>): Promise<AgentResponse> {
    const options: AgentRunOptions<Context> = given ?? {};
    if ((options.output ?? this.config.output) === undefined)
      return collectAgentResponse(flattenBatches(this.batches(input, options)));
    return collectStructured((failure) => flattenBatches(this.batches(input, options, failure)));
  }
}
