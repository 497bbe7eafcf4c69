import {
  type AgentResponseUpdate,
  CancelledError,
  type ITool,
  type PendingApprovalBatch,
  type Usage,
} from '@raf/core';
import type { AgentInput, AgentRunOptions } from '../agent/agent-run-options.js';
import { invokeProviders } from '../agent/provider-chain.js';
import { CallWatchdog } from '../pipeline/call-watchdog.js';
import { LoopGuard } from '../pipeline/loop-guard.js';
import { ProgressChannel } from '../pipeline/progress-channel.js';
import type { LoopHooks, StopCondition } from '../pipeline/step-hooks.js';
import { shouldStop } from '../pipeline/step-runner.js';
import type { ToolRun } from '../pipeline/tool-executor.js';
import type { ToolTimeouts } from '../pipeline/tool-timeouts.js';
import type { ToolView } from '../pipeline/tool-view.js';
import {
  type AgentGovernance,
  composeViews,
  currentGovernance,
  governanceView,
} from '../runtime-policy/governance-view.js';
import { closingResults, type InterruptedTurn, interruptedTurn } from './interrupted-turn.js';
import { type AgentCompression, composePrompt, compressPrompt } from './prompt.js';
import { type RunAgent, RunScope } from './run-scope.js';
import { newRunState, type RunState } from './run-state.js';
import { type AgentTools, modelRequest, sameTools } from './run-tools.js';
import { type RunNext, type StepDeps, step } from './step.js';

/** An agent as the runner reads it: its parts and the settings of its loop. */
export interface AgentRuntime extends RunAgent {
  readonly instructions: string | undefined;
  readonly tools: AgentTools;
  readonly maxToolRounds: number;
  readonly maxIdenticalCalls: number;
  readonly timeouts: ToolTimeouts;
  readonly hooks: LoopHooks | undefined;
  readonly stopWhen: readonly StopCondition[] | undefined;
  readonly compression: AgentCompression | undefined;
  readonly governance: AgentGovernance | undefined;
}

const FAILED: RunNext = { type: 'failed' };

/**
 * The run: providers, the prompt (compressed when over budget), then `step` after `step` until one
 * says the run ends, with the stop conditions and the round limit between steps; every change is
 * kept through the session (and its journal) as it happens. Always ends with one `finish`.
 */
export async function* runAgent(
  agent: AgentRuntime,
  input: AgentInput,
  options: AgentRunOptions<unknown>,
): AsyncGenerator<readonly AgentResponseUpdate[], void, undefined> {
  const run = RunScope.open(agent, input, options);
  const { session, signal, paused } = run;
  let next = FAILED;
  let usage: Usage | undefined;
  let done = false;
  let live: ReturnType<typeof step> | undefined;
  let deps: RunDeps | undefined;
  try {
    try {
      if (signal.aborted) throw new CancelledError();
      const interrupted = paused ? undefined : interruptedTurn(session);
      // New input after a crash: the interrupted calls are answered (nothing runs) before it joins.
      if (interrupted && run.input.length > 0) agent.history.store(session, closingResults(interrupted));
      const context = await invokeProviders(agent.providers, {
        agentName: agent.name,
        session,
        input: run.input,
        signal,
      });
      if (context.warnings.length > 0) yield run.warnings(context.warnings);
      const instructions = [options.instructions ?? agent.instructions, ...context.instructions];
      const prompt = composePrompt(instructions, context.messages, run.input);
      const compressed = await compressPrompt(prompt, agent.compression, agent.client.modelMetadata, signal);
      if (compressed.warning) yield run.warnings([compressed.warning]);
      const state = newRunState(compressed.messages);
      run.started(state);
      if (paused) resumeBatch(state, paused, options);
      else if (interrupted && run.input.length === 0) resumeTurn(state, interrupted);
      deps = await stepDeps(agent, run, options, context.tools);
      run.keepInput();
      for (let first = true; ; first = false) {
        // A provider's tools that changed since the last round (an MCP server's list_changed).
        if (!first && context.currentTools) refreshTools(agent, deps, await context.currentTools(), options);
        // The steps so far are kept before the model is asked again (the turn journal); awaited
        // only when there is a write to wait for (the in-memory recorder returns nothing).
        const flushed = run.recorder.flush();
        if (flushed) await flushed;
        const stepsBefore = deps.steps?.length;
        live = step(state, deps);
        let r = await live.next();
        for (; !r.done; r = await live.next()) yield run.saw(r.value);
        live = undefined;
        next = r.value.next;
        if (next.type !== 'again') break;
        const stepped = deps.steps !== undefined && deps.steps.length !== stepsBefore;
        if (stepped && (await shouldStop(agent.stopWhen, state.round, deps.steps!))) {
          next = { type: 'stopped', reason: 'stopCondition' };
          break;
        }
        if (++state.round >= agent.maxToolRounds) {
          next = { type: 'stopped', reason: 'maxRounds' };
          break;
        }
      }
      usage = state.usage;
    } catch (error) {
      const shown = run.failed(error);
      if (shown.length > 0) yield shown;
      next = CancelledError.isInstance(error) || signal.aborted ? { type: 'cancelled' } : FAILED;
    }
    done = true;
  } finally {
    // A consumer that stopped reading: the step in flight closes (its model stream with it).
    if (live) await live.return({ state: newRunState([]), next });
    // The batches' one timer, kept armed between them, goes with the run.
    deps?.calls.watchdog.stop();
    if (!done) await run.abandoned();
  }
  yield await run.finish(next, usage);
}

/** The answered batch goes first: its answers were checked when the run opened, not again. */
function resumeBatch(state: RunState, paused: PendingApprovalBatch, options: AgentRunOptions<unknown>): void {
  state.pending = paused;
  state.round = paused.round;
  state.approvals = [...(options.approvals ?? [])];
}

/** The turn a crash interrupted goes on first (calls in doubt run again only when idempotent). */
function resumeTurn(state: RunState, turn: InterruptedTurn): void {
  state.round = turn.round;
  state.interrupted = { calls: turn.calls, inDoubt: [...turn.inDoubt] };
}

type RunDeps = StepDeps & { view: ToolView | undefined; providerTools: readonly ITool[] };

/** The providers' tools as they are now: the step's tools and request change when they did. */
function refreshTools(
  agent: AgentRuntime,
  deps: RunDeps,
  now: readonly ITool[],
  options: AgentRunOptions<unknown>,
): void {
  if (sameTools(now, deps.providerTools)) return;
  deps.providerTools = now;
  deps.tools = agent.tools.index(now, deps.view);
  deps.request = modelRequest(deps.tools, options.signal, options.modelOptions);
}

/** What every step of the run shares; the tools and request change when a provider's tools do. */
async function stepDeps(
  agent: AgentRuntime,
  run: RunScope,
  options: AgentRunOptions<unknown>,
  providerTools: readonly ITool[],
): Promise<RunDeps> {
  const governance = agent.governance;
  const view = governance
    ? composeViews(
        governanceView(await currentGovernance(governance.source, run.signal), governance.policy),
        options.toolView,
      )
    : options.toolView;
  const tools = agent.tools.index(providerTools, view);
  const hooks = agent.hooks;
  const trace = run.traced?.trace;
  const calls: ToolRun = {
    signal: run.signal,
    context: options.context,
    sessionId: run.session.id,
    timeouts: agent.timeouts,
    sink: new ProgressChannel(),
    watchdog: new CallWatchdog(),
    observer: trace || hooks?.onToolStart || hooks?.onToolEnd ? { hooks, trace, warnings: [] } : undefined,
    recorder: run.recorder,
    onInputRequest: options.onInputRequest,
  };
  // Steps are kept only for stop conditions; timing only for hooks that read it.
  const steps = agent.stopWhen ? [] : undefined;
  return {
    client: agent.client,
    tools,
    request: modelRequest(tools, options.signal, options.modelOptions),
    calls,
    journal: run,
    guard: new LoopGuard(agent.maxIdenticalCalls),
    hooks,
    trace,
    steps,
    timed: steps !== undefined || hooks?.onStepFinish !== undefined,
    view,
    providerTools,
  };
}
