import { randomUUID } from 'node:crypto';
import {
  type AgentResponse,
  type AgentResponseUpdate,
  addUsage,
  assistantMessage,
  collectAgentResponse,
  type FinishUpdate,
  type ISession,
  type JSONValue,
  type Usage,
  userMessage,
} from '@raf/core';
import type { WorkflowResult } from '../engine/engine.js';
import type { WorkflowEvent } from '../engine/events.js';
import { runStateJSON, safeParseRunState } from '../engine/run-state.js';
import { textOf } from '../executors/message-text.js';
import type { Workflow, WorkflowRun } from '../workflow.js';
import type { AgentLike, AgentLikeInput, AgentLikeRunOptions } from './agent-like.js';
import { NodeSession } from './node-session.js';

/** The session's provider-state entry that holds a paused run. */
export const WORKFLOW_STATE_KEY = 'workflow';

export interface WorkflowAgentRunOptions extends AgentLikeRunOptions {
  /** Each workflow event as it happens (the CLI prints node events from it). */
  onEvent?: (event: WorkflowEvent) => void;
}

function inputValue(input: AgentLikeInput): JSONValue {
  if (input === undefined) return '';
  if (typeof input === 'string') return input;
  const list = Array.isArray(input) ? input : [input];
  if (list.length === 1 && list[0]?.role === 'user') return list[0].content;
  return list.map((m) => ({ role: m.role, content: m.content }));
}

/**
 * A workflow as an agent: `run` streams what its nodes stream (tool calls, approvals, usage),
 * the text of output nodes as the answer, and ends with one `finish`. A paused run is kept in
 * the session: the next `run` with approvals, or with the answer as input, continues it.
 */
export class WorkflowAgent implements AgentLike {
  readonly name: string;
  readonly description: string | undefined;
  readonly workflow: Workflow;

  constructor(workflow: Workflow, options: { name?: string; description?: string } = {}) {
    this.workflow = workflow;
    this.name = options.name ?? workflow.name;
    this.description = options.description ?? workflow.description;
  }

  createSession(id?: string): ISession {
    return new NodeSession(id ?? randomUUID());
  }

  /** The pause the session holds, if any. */
  pausedRun(session: ISession): WorkflowResult['state'] | undefined {
    const saved = session.getProviderState(WORKFLOW_STATE_KEY);
    if (saved === undefined) return undefined;
    const parsed = safeParseRunState(saved);
    return parsed.success ? parsed.data : undefined;
  }

  generate(input: AgentLikeInput, options: WorkflowAgentRunOptions = {}): Promise<AgentResponse> {
    return collectAgentResponse(this.run(input, options));
  }

  async *run(
    input: AgentLikeInput,
    options: WorkflowAgentRunOptions = {},
  ): AsyncGenerator<AgentResponseUpdate> {
    const session = options.session;
    const paused = session ? this.pausedRun(session) : undefined;
    const common = {
      ...(options.signal && { signal: options.signal }),
      ...(options.onEvent && { onEvent: options.onEvent }),
    };
    let run: WorkflowRun;
    if (paused && paused.status === 'halted') {
      const value = inputValue(input);
      run = this.workflow.resume({
        ...common,
        state: paused,
        checkpoints: undefined,
        ...(options.approvals && { approvals: options.approvals }),
        ...(input !== undefined && { answer: value }),
      });
    } else {
      run = this.workflow.run(inputValue(input), {
        ...common,
        ...(session && { runId: session.id }),
      });
    }
    if (session && input !== undefined && !paused) {
      const messages =
        typeof input === 'string' ? [userMessage(input)] : Array.isArray(input) ? input : [input];
      session.addMessages(messages as never);
    }
    let usage: Usage | undefined;
    let answer = '';
    let result: WorkflowResult | undefined;
    const outputNodes = new Set(this.workflow.graph.outputNodeIds);
    try {
      for await (const event of run) {
        let update = mapEvent(event, outputNodes);
        if (!update) continue;
        // Outputs of several nodes read as lines of one answer.
        if (event.type === 'output' && update.type === 'text-delta' && answer && !answer.endsWith('\n'))
          update = { ...update, delta: `\n${update.delta}` };
        if (update.type === 'usage') usage = usage ? addUsage(usage, update.usage) : update.usage;
        if (update.type === 'text-delta') answer += update.delta;
        yield update;
      }
      result = await run.result;
    } catch (error) {
      yield { type: 'error', code: 'RAF_WORKFLOW', message: (error as Error).message };
      yield { type: 'finish', reason: 'other', ...(usage && { usage }) };
      return;
    }
    if (session) this.remember(session, result, answer);
    const finish: FinishUpdate = { type: 'finish', reason: 'stop', ...(usage && { usage }) };
    if (result.status === 'halted') {
      const input = result.halted.find((h) => h.request.kind === 'input');
      if (input && input.request.kind === 'input') {
        yield {
          type: 'warning',
          code: 'workflow-awaiting-input',
          message: `waiting for input: ${input.request.prompt}`,
        };
        yield { ...finish, reason: 'other', rawReason: 'awaitingInput' };
      } else yield { ...finish, reason: 'awaitingApproval' };
      return;
    }
    if (result.status === 'cancelled') {
      yield { ...finish, reason: 'cancelled' };
      return;
    }
    if (result.status === 'failed') {
      yield { ...finish, reason: 'other' };
      return;
    }
    yield finish;
  }

  private remember(session: ISession, result: WorkflowResult, answer: string): void {
    if (result.status === 'halted') {
      session.setProviderState(WORKFLOW_STATE_KEY, runStateJSON(result.state));
      const approval = result.halted.find((h) => h.request.kind === 'approval');
      const nodeSession = approval ? result.state.nodeState[approval.nodeId] : undefined;
      const batch = (nodeSession as { pendingApproval?: ISession['pendingApproval'] } | undefined)
        ?.pendingApproval;
      session.pendingApproval = batch;
      return;
    }
    session.setProviderState(WORKFLOW_STATE_KEY, undefined);
    session.pendingApproval = undefined;
    if (answer) session.addMessages([assistantMessage(answer)]);
  }
}

/** A workflow event as an agent update: node tool calls, approvals, usage; output text as the answer. */
function mapEvent(event: WorkflowEvent, outputNodes: ReadonlySet<string>): AgentResponseUpdate | undefined {
  switch (event.type) {
    case 'node-streaming': {
      const update = event.update;
      if (update.type === 'text-delta' || update.type === 'reasoning-delta')
        return outputNodes.has(event.nodeId) ? update : undefined;
      if (update.type === 'finish' || update.type === 'response-metadata') return undefined;
      return update;
    }
    case 'output':
      if (event.streamed) return undefined;
      return { type: 'text-delta', delta: textOf(event.value) };
    case 'error':
      return { type: 'error', code: event.code, message: event.message };
    default:
      return undefined;
  }
}
