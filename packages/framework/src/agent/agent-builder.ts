import { ConfigError, type IChatClient, type IContextProvider, type ITool } from '@raf/core';
import type { ICompressionStrategy, ITokenCounter } from '../compression/compression-types.js';
import { EstimateTokenCounter } from '../compression/token-counters.js';
import { ChatClientBuilder, type ChatClientDecorator } from '../pipeline/chat-client-builder.js';
import type { LoopHooks, StopCondition } from '../pipeline/step-hooks.js';
import { checkTimeoutMs, DEFAULT_TOOL_TIMEOUT_MS, ToolTimeouts } from '../pipeline/tool-timeouts.js';
import { InMemoryHistoryProvider, isHistoryProvider } from '../providers/in-memory-history-provider.js';
import type { OutputSpec } from '../run/structured-output.js';
import type { AgentGovernance, GovernanceSource } from '../runtime-policy/governance-view.js';
import type { AgentToolPolicy } from '../runtime-policy/tool-governance.js';
import type { DelegationToolsOptions } from '../sub-agents/delegation-tools.js';
import type { SubAgentRunner, SubAgentSpec } from '../sub-agents/sub-agent.js';
import { createSubAgentRunner } from '../sub-agents/sub-agent-runner.js';
import { SubAgentsProvider } from '../sub-agents/sub-agents-provider.js';

/** How an agent delegates to its sub-agents. */
export interface SubAgentsOptions extends DelegationToolsOptions {
  /** Spare worker processes kept started (default 1; 0 for none). */
  warmWorkers?: number;
  /** Runs the delegations instead of the default runner (one worker process per delegation). */
  runner?: SubAgentRunner;
}

import type { TelemetryOptions } from '../telemetry/run-trace.js';
import { ToolRegistry } from '../tools/tool-registry.js';
import { type AgentCompression, ChatClientAgent } from './chat-client-agent.js';

/** Identical consecutive calls (same tool, same arguments) before the loop guard stops the run. */
const MAX_IDENTICAL_CALLS = 3;

/**
 * `unknown` when a tool's run context fits the agent's (the agent's context has everything the
 * tool reads); otherwise a type naming the mismatch, so `withTool` reports it.
 */
export type ContextFits<AgentContext, ToolContext> = [AgentContext] extends [ToolContext]
  ? unknown
  : { 'the agent context lacks what this tool reads': ToolContext };

/** The tools among `T` whose run context does not fit the agent's. */
type Misfits<AgentContext, T> =
  T extends ITool<unknown, infer ToolContext> ? ([AgentContext] extends [ToolContext] ? never : T) : never;

type AllFit<AgentContext, T> = [Misfits<AgentContext, T>] extends [never]
  ? unknown
  : { 'these tools read a context the agent lacks': Misfits<AgentContext, T> };

/**
 * Builds a `ChatClientAgent`. The history provider is always there and always first. Decorators
 * added with `useDecorator` wrap the model client (the last one added is the outermost): each
 * model call of a run passes through them; the run's steps are the agent's, not a client's. `Context` is the type of the run
 * context (`agent.run(input, { context })`) the tools receive: `new AgentBuilder<MyContext>('name')`.
 */
export class AgentBuilder<Context = unknown> {
  private client: IChatClient | undefined;
  private agentInstructions: string | undefined;
  private agentDescription: string | undefined;
  private readonly registry = new ToolRegistry();
  private readonly providers: IContextProvider[] = [];
  private history: InMemoryHistoryProvider = new InMemoryHistoryProvider();
  private rounds = 10;
  private compression: AgentCompression | undefined;
  private readonly decorators: ChatClientDecorator[] = [];
  private timeoutMs = DEFAULT_TOOL_TIMEOUT_MS;
  private readonly timeouts: Record<string, number> = {};
  private hooks: LoopHooks = {};
  private readonly stopConditions: StopCondition[] = [];
  private telemetryOptions: TelemetryOptions | undefined;
  private governance: AgentGovernance | undefined;
  private output: OutputSpec | undefined;
  private subAgents: { specs: readonly SubAgentSpec[]; options: SubAgentsOptions } | undefined;

  constructor(private readonly name = 'agent') {}

  chatClient(client: IChatClient): this {
    this.client = client;
    return this;
  }

  instructions(text: string): this {
    this.agentInstructions = text;
    return this;
  }

  description(text: string): this {
    this.agentDescription = text;
    return this;
  }

  withTool<ToolContext>(tool: ITool<unknown, ToolContext> & ContextFits<Context, ToolContext>): this {
    this.registry.register(tool);
    return this;
  }

  withTools<T extends ITool>(tools: Iterable<T> & AllFit<Context, T>): this {
    for (const tool of tools) this.registry.register(tool);
    return this;
  }

  /** Adds a provider after the ones added before (declaration order is execution order). */
  withContextProvider(provider: IContextProvider): this {
    if (isHistoryProvider(provider)) return this.withHistoryProvider(provider);
    this.providers.push(provider);
    return this;
  }

  /** Replaces the implicit history provider (there is never a second one); it stays first. */
  withHistoryProvider(provider: InMemoryHistoryProvider): this {
    this.history = provider;
    return this;
  }

  /**
   * Every run asks for a structured answer matching this schema (zod, or a JSON Schema): the
   * provider's native mode, the answer validated with one repair turn, `finish.output` the value.
   */
  outputSchema(schema: OutputSpec): this {
    this.output = schema;
    return this;
  }

  maxToolRounds(rounds: number): this {
    if (!Number.isInteger(rounds) || rounds < 1)
      throw new ConfigError(`maxToolRounds must be a whole number ≥ 1, got ${rounds}`);
    this.rounds = rounds;
    return this;
  }

  /**
   * How long a tool call may run before its signal is aborted and the model is told
   * `Tool <name> timed out after N s` (the run goes on). Without `toolName`: the default for every
   * tool (120 s) whose manifest names none; with it: that tool's limit, over its manifest.
   */
  toolTimeout(ms: number, toolName?: string): this {
    checkTimeoutMs(ms, toolName ? `the timeout of tool '${toolName}'` : 'the tool timeout');
    if (toolName === undefined) this.timeoutMs = ms;
    else this.timeouts[toolName] = ms;
    return this;
  }

  /** Step and tool hooks of the tool loop (`prepareStep`, `onStepFinish`, `onToolStart`, `onToolEnd`); merged with earlier ones. */
  withHooks(hooks: LoopHooks): this {
    this.hooks = { ...this.hooks, ...hooks };
    return this;
  }

  /** Ends the run after a step that ran tools when any condition holds (`stepCountIs(n)`, `hasToolCall(name)`), beside `maxToolRounds`. */
  stopWhen(...conditions: StopCondition[]): this {
    this.stopConditions.push(...conditions);
    return this;
  }

  /** OpenTelemetry spans: `{ enabled: false }` turns them off, `recordContent` adds tool arguments and results. */
  withTelemetry(options: TelemetryOptions): this {
    this.telemetryOptions = { ...this.telemetryOptions, ...options };
    return this;
  }

  /** Compresses the prompt when it exceeds the budget (the model's input budget unless given). */
  withCompression(
    strategy: ICompressionStrategy,
    options: { counter?: ITokenCounter; inputBudget?: number } = {},
  ): this {
    this.compression = { strategy, counter: options.counter ?? new EstimateTokenCounter() };
    if (options.inputBudget !== undefined) this.compression.inputBudget = options.inputBudget;
    return this;
  }

  /**
   * Tool governance (SPEC §7.1): global enable/disable, prompt hints and worker routing, with this
   * agent's overrides (`policy`, YAML `toolPolicy`). Given a store, every run reads it again, so
   * `raf tools disable …` applies to the next run without a rebuild. Disabled tools vanish from
   * what the model sees, declared and provider-injected alike; hints are appended to descriptions.
   */
  withToolGovernance(source: GovernanceSource, policy?: AgentToolPolicy): this {
    this.governance = policy ? { source, policy } : { source };
    return this;
  }

  /**
   * Makes the agent a delegating coordinator (SPEC §7.1): it gets `delegate_task` and
   * `delegate_parallel` over these sub-agents, each delegation running in its own worker process
   * (or inline) with its projected tools, under this agent's governance.
   */
  withSubAgents(subAgents: readonly SubAgentSpec[], options: SubAgentsOptions = {}): this {
    const names = new Set<string>();
    for (const spec of subAgents) {
      if (names.has(spec.name)) throw new ConfigError(`two sub-agents are named '${spec.name}'`);
      names.add(spec.name);
    }
    this.subAgents = subAgents.length > 0 ? { specs: subAgents, options } : undefined;
    return this;
  }

  /** A model-level decorator (retries, caching, a durable step per model call); the last one added is the outermost. */
  useDecorator(decorator: ChatClientDecorator): this {
    this.decorators.push(decorator);
    return this;
  }

  /** Whether the built agent may run tools: static tools, sub-agents, or a provider that may inject them. */
  get needsToolLoop(): boolean {
    return (
      this.registry.size > 0 ||
      this.subAgents !== undefined ||
      this.providers.some((p) => p.injectsTools !== false)
    );
  }

  build(): ChatClientAgent<Context> {
    if (!this.client)
      throw new ConfigError('chat_client is required: call .chatClient(client) before .build()');
    const pipeline = ChatClientBuilder.leaf(this.client);
    for (const decorator of this.decorators) pipeline.use(decorator);
    const providers = [...this.providers];
    if (this.subAgents) {
      const { specs, options } = this.subAgents;
      const runner =
        options.runner ??
        createSubAgentRunner(specs, {
          ...(this.governance && { parent: { governance: this.governance } }),
          ...(options.warmWorkers !== undefined && { warmWorkers: options.warmWorkers }),
        });
      providers.push(new SubAgentsProvider(runner, options));
    }
    const byName = Object.keys(this.timeouts).length > 0 ? new Map(Object.entries(this.timeouts)) : undefined;
    return new ChatClientAgent<Context>({
      name: this.name,
      ...(this.agentDescription !== undefined && { description: this.agentDescription }),
      ...(this.agentInstructions !== undefined && { instructions: this.agentInstructions }),
      chatClient: pipeline.build(),
      tools: this.registry.list(),
      history: this.history,
      contextProviders: providers,
      maxToolRounds: this.rounds,
      maxIdenticalCalls: MAX_IDENTICAL_CALLS,
      timeouts: new ToolTimeouts(this.timeoutMs, byName),
      hooks: { ...this.hooks },
      stopWhen: [...this.stopConditions],
      ...(this.compression && { compression: this.compression }),
      ...(this.telemetryOptions && { telemetry: this.telemetryOptions }),
      ...(this.governance && { governance: this.governance }),
      ...(this.output !== undefined && { output: this.output }),
    });
  }
}
