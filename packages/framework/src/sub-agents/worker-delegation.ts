import { type ApprovalResponse, getErrorMessage, type ITool, toolFailure } from '@raf/core';
import { subscribeAbort, timerDelay, unsubscribeAbort } from '@raf/core/internal';
import { parseRunState } from '../run/run-state.js';
import type { AgentProjection } from '../runtime-policy/agent-projection.js';
import { runStateJSON } from './delegated-run.js';
import { delegationTimedOut } from './delegation-timeout.js';
import { type PausedDelegation, pausedJSON, raisedRequests } from './paused-run.js';
import { answerProxiedCall } from './proxied-call.js';
import type { SubAgentOutcome, SubAgentRunRequest, SubAgentSpec, WorkerFactoryRef } from './sub-agent.js';
import type { WorkerProcess } from './worker-process.js';
import {
  describeMessageError,
  type ToolAnswer,
  type ToolCallMessage,
  WORKER_PROTOCOL_VERSION,
  wireToolAnswer,
  workerMessageSchema,
} from './worker-protocol.js';

const v = WORKER_PROTOCOL_VERSION;

export interface WorkerDelegation {
  worker: WorkerProcess;
  spec: SubAgentSpec;
  factory: WorkerFactoryRef;
  projection: AgentProjection;
  request: SubAgentRunRequest;
  /** Resuming: what the delegation saved, and the sub-agent's own answers. */
  paused?: PausedDelegation;
  answers?: ApprovalResponse[];
  /** The sub-agent's call ids the human approved, with the target shown: proxied calls claiming approval are checked against it. */
  approved: ReadonlyMap<string, string | undefined>;
  timeoutMs: number;
}

/** The route names each of the sub-agent's own tools gets in the worker. */
function routesOf(
  projection: AgentProjection,
): Record<string, 'worker-local' | 'main-process-proxy' | 'disabled'> {
  const routes: Record<string, 'worker-local' | 'main-process-proxy' | 'disabled'> = {};
  for (const t of projection.tools) if (t.tool) routes[t.name] = t.runtime.route;
  return routes;
}

/**
 * Runs one delegation in a worker process and answers its proxied calls with the parent's own
 * instances: the same argument checks, path guard and approval gate as the parent's own calls. A
 * worker that crashes, hangs past its time, or sends a malformed message ends the delegation with
 * a failure; the process is always gone when this settles.
 */
export function runInWorker(delegation: WorkerDelegation): Promise<SubAgentOutcome> {
  const { worker, spec, projection, request } = delegation;
  const agent = spec.name;
  const proxied = new Map<string, ITool>();
  for (const t of projection.tools)
    if (t.tool && t.runtime.route === 'main-process-proxy') proxied.set(t.name, t.tool);
  // Proxied calls stop with the delegation.
  const calls = new AbortController();
  // Each approval is spent by the call it was given for: a worker cannot run it twice.
  const approved = new Map(delegation.approved);

  return new Promise<SubAgentOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: SubAgentOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (request.signal) unsubscribeAbort(request.signal, onAbort);
      worker.child.off('message', onMessage);
      calls.abort();
      // The outcome is given only once the process is gone: no orphans behind a delegation.
      void worker.stop().then(() => resolve(outcome));
    };
    const failed = (error: string) => finish({ status: 'failed', agent, error });
    const timer = setTimeout(
      () => failed(`${delegationTimedOut(delegation.timeoutMs)}; its worker was stopped`),
      timerDelay(delegation.timeoutMs),
    );
    const onAbort = () => failed('cancelled');
    if (request.signal?.aborted) return onAbort();
    if (request.signal) subscribeAbort(request.signal, onAbort);
    void worker.exited.then(({ code, signal }) =>
      failed(`its worker exited before answering (${signal ? `signal ${signal}` : `exit code ${code}`})`),
    );

    const reply = (requestId: number, answer: ToolAnswer) =>
      worker.send({ v, type: 'tool-answer', requestId, answer: wireToolAnswer(answer) });

    // One proxied call, one answer: the gate decided here once (as the loop decides it), then
    // the parent's own instance runs, or the approval it needs goes back to pause the worker.
    const proxy = async (message: ToolCallMessage): Promise<ToolAnswer> => {
      const tool = proxied.get(message.name);
      if (!tool)
        return {
          result: toolFailure(`Refused: ${message.name} does not run in the main process for ${agent}`),
        };
      // An approval counts only when the human gave it for this very call.
      let approvedTarget: string | null | undefined;
      if (message.approved && approved.has(message.callId)) {
        approvedTarget = approved.get(message.callId) ?? null;
        approved.delete(message.callId);
      }
      return answerProxiedCall(tool, message, calls.signal, approvedTarget);
    };

    // An event handler that throws ends the process: whatever a worker sends, a failure in
    // handling it fails this delegation only.
    const onMessage = (raw: unknown) => {
      try {
        handle(raw);
      } catch (error) {
        failed(`its message could not be handled: ${getErrorMessage(error)}`);
      }
    };
    const handle = (raw: unknown) => {
      const parsed = workerMessageSchema().safeParse(raw);
      if (!parsed.success)
        return failed(`its worker sent a malformed message: ${describeMessageError(parsed.error)}`);
      const message = parsed.data;
      switch (message.type) {
        case 'ready':
          return;
        case 'model-update':
          request.onUpdate?.(message.update);
          return;
        case 'tool-call':
          proxy(message).then(
            (answer) => reply(message.requestId, answer),
            (error) =>
              reply(message.requestId, { result: toolFailure(`Framework error: ${getErrorMessage(error)}`) }),
          );
          return;
        case 'approval-request': {
          const paused: PausedDelegation = {
            agent,
            state: parseRunState(message.state, `the paused run ${agent}'s worker sent`),
            requests: message.requests,
          };
          return finish({
            status: 'paused',
            agent,
            requests: raisedRequests(agent, request.callId, message.requests),
            state: pausedJSON(paused),
          });
        }
        case 'done':
          return finish(
            message.finishReason === 'cancelled'
              ? { status: 'failed', agent, error: 'cancelled' }
              : {
                  status: 'done',
                  agent,
                  text: message.text,
                  ...(message.usage && { usage: message.usage }),
                },
          );
        case 'error':
          return failed(message.message);
      }
    };
    worker.child.on('message', onMessage);
    const { paused, answers } = delegation;
    worker.send({
      v,
      type: 'start',
      agent,
      definition: delegation.factory,
      ...(paused ? { state: runStateJSON(paused.state), approvals: answers ?? [] } : { task: request.task }),
      routes: routesOf(projection),
    });
  });
}
