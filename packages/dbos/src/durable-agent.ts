import { randomUUID } from 'node:crypto';
import type { AgentResponseUpdate, ChatMessage, ToolApprovalRequestUpdate } from '@raf/core';
import type { ChatClientAgent, InputRequestHandler } from '@raf/framework';
import { DurableRuntime, type DurableRuntimeOptions } from './durable-runtime.js';
import type { DurableWorkflowAgent } from './durable-workflow.js';
import type { DurableAgentRef, DurableRunOutcome, WorkflowQuestion } from './run-spec.js';

export interface DurableAgentOptions extends Omit<DurableRuntimeOptions, 'store'> {
  /** `postgres://…` */
  store: string;
  /** How the runs name the agent (any process that takes a run over must know it: `resolve`). */
  ref?: DurableAgentRef;
}

export interface DurableRunOptions {
  /** The run id (DBOS workflow id); default a new UUID. */
  runId?: string;
  /** The session the run continues (default: a new one named like the run). */
  sessionId?: string;
  /** Each update as it happens in this process. */
  onUpdate?: (update: AgentResponseUpdate) => void;
  /** Answers tools' questions while the run goes on in this process (else they are declined). */
  onInputRequest?: InputRequestHandler;
}

/**
 * Where a run stopped in this process: it ended, or it is parked waiting for approval of
 * `requests` or (a workflow) for the answers to `questions`.
 */
export type DurableRunStop =
  | ({ status: 'ended' } & DurableRunOutcome)
  | {
      status: 'paused';
      runId: string;
      pause: number;
      requests: ToolApprovalRequestUpdate[];
      questions?: WorkflowQuestion[];
    };

/**
 * An agent whose runs are DBOS workflows (SPEC §14.2): each model call and tool call a step, so a
 * run whose process dies goes on in a worker (`raf worker`) from its last finished step. Approvals
 * park the run; `DurableControl.approve` answers from any process.
 */
export class DurableAgent {
  private constructor(
    readonly runtime: DurableRuntime,
    readonly ref: DurableAgentRef,
  ) {}

  static async open(
    agent: ChatClientAgent | DurableWorkflowAgent,
    options: DurableAgentOptions,
  ): Promise<DurableAgent> {
    const { ref, ...runtime } = options;
    const opened = await DurableRuntime.open(runtime);
    return new DurableAgent(opened, opened.register(agent, ref));
  }

  /**
   * Starts a run and waits until it ends or parks (an approval, a workflow's question); it goes
   * on elsewhere if this process dies. The input is text, or a user message with content parts
   * (a chat agent's run).
   */
  async run(input: string | ChatMessage, options: DurableRunOptions = {}): Promise<DurableRunStop> {
    const runId = options.runId ?? randomUUID();
    const spec = { runId, sessionId: options.sessionId ?? runId, agent: this.ref, input };
    return this.follow(runId, options, () => this.runtime.start(spec, undefined));
  }

  /** Waits for a run this process holds (after an approval) to end or park again. */
  async wait(
    runId: string,
    onUpdate?: (update: AgentResponseUpdate) => void,
    onInputRequest?: InputRequestHandler,
  ): Promise<DurableRunStop> {
    return this.follow(
      runId,
      { ...(onUpdate && { onUpdate }), ...(onInputRequest && { onInputRequest }) },
      async () => {},
    );
  }

  close(options?: { release?: boolean }): Promise<void> {
    return this.runtime.close(options);
  }

  private follow(
    runId: string,
    { onUpdate, onInputRequest }: Pick<DurableRunOptions, 'onUpdate' | 'onInputRequest'>,
    start: () => Promise<void>,
  ): Promise<DurableRunStop> {
    return new Promise<DurableRunStop>((resolve, reject) => {
      this.runtime.listen(runId, {
        update: (update) => onUpdate?.(update),
        ...(onInputRequest && { onInputRequest }),
        paused: (state) =>
          resolve({
            status: 'paused',
            runId,
            pause: state.pause,
            requests: state.requests,
            ...(state.questions && { questions: state.questions }),
          }),
      });
      start()
        .then(() => this.runtime.result(runId))
        .then((outcome) => {
          if (outcome) resolve({ status: 'ended', ...outcome });
          else reject(new Error(`durable run ${runId} has no result`));
        }, reject);
    });
  }
}

/** `durableAgent(agent, { store: 'postgres://…' })`: the agent's runs as durable DBOS workflows. */
export function durableAgent(
  agent: ChatClientAgent | DurableWorkflowAgent,
  options: DurableAgentOptions,
): Promise<DurableAgent> {
  return DurableAgent.open(agent, options);
}
