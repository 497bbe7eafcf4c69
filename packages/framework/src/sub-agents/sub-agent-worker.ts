// The sub-agent worker process (SPEC §7.1): started by `WorkerProcess`, one delegation per process.
// `start` carries the delegation as data: the sub-agent's definition (a factory and the JSON it
// makes the agent of) and the run's state. The worker makes that one agent, runs it with only its
// projected tools (worker-local ones here, proxied ones in the parent, one round trip a call),
// streams its updates, and pauses when the sub-agent waits for approval. It exits when the parent
// goes away.
import {
  type AgentResponseUpdate,
  type ApprovalResponse,
  defineTool,
  getErrorMessage,
  type IChatClient,
  type ITool,
  toolSuccess,
} from '@raf/core';
import * as z from 'zod';
import { AgentBuilder } from '../agent/agent-builder.js';
import { parseRunState } from '../run/run-state.js';
import { AgentSession } from '../sessions/agent-session.js';
import { delegatedRunState, delegatedSession, runStateJSON } from './delegated-run.js';
import { ProxiedTool, type ProxyChannel } from './proxy-tool.js';
import { RunTally } from './run-tally.js';
import type { SubAgentFactory } from './sub-agent.js';
import {
  describeMessageError,
  parentMessageSchema,
  type StartMessage,
  type ToolAnswer,
  WORKER_PROTOCOL_VERSION,
  type WorkerMessage,
} from './worker-protocol.js';

const v = WORKER_PROTOCOL_VERSION;

function send(message: WorkerMessage): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send?.(message, undefined, {}, () => resolve());
  });
}

async function fail(message: string): Promise<never> {
  await send({ v, type: 'error', message });
  process.exit(1);
}

// The parent is gone (it exited or was killed): nothing is left to work for.
process.on('disconnect', () => process.exit(0));

const preload: string[] = JSON.parse(process.env.RAF_WORKER_PRELOAD ?? '[]');
delete process.env.RAF_WORKER_PRELOAD;
// A spare worker loads the factory's modules while it waits (and runs their `warmUp` export, which
// loads what they would load lazily on the first request); failures show at `start`.
const preloaded = Promise.all(
  preload.map((m) =>
    import(m)
      .then((module: { warmUp?: unknown }) =>
        typeof module.warmUp === 'function' ? (module.warmUp as () => Promise<void>)() : undefined,
      )
      .catch(() => undefined),
  ),
);
// Before any work arrives, one rehearsal run loads and compiles the code every run goes through.
void preloaded
  .then(() => (started ? undefined : rehearse()))
  .catch(() => undefined)
  .then(() => send({ v, type: 'ready' }));

let nextRequest = 1;
const pending = new Map<number, (answer: ToolAnswer) => void>();
let approvalWaiter: ((approvals: ApprovalResponse[]) => void) | undefined;
let started = false;
const controller = new AbortController();

process.on('SIGTERM', () => {
  controller.abort(new Error('the parent stopped this worker'));
  setTimeout(() => process.exit(143), 200).unref();
});

process.on('message', (raw: unknown) => {
  const parsed = parentMessageSchema().safeParse(raw);
  if (!parsed.success) {
    void fail(`the parent sent a malformed message: ${describeMessageError(parsed.error)}`);
    return;
  }
  const message = parsed.data;
  switch (message.type) {
    case 'start':
      if (started) return void fail('a second start message');
      started = true;
      run(message).catch((error) => fail(getErrorMessage(error)));
      return;
    case 'tool-answer': {
      const waiter = pending.get(message.requestId);
      pending.delete(message.requestId);
      waiter?.(message.answer);
      return;
    }
    case 'approval-response':
      approvalWaiter?.(message.approvals);
      approvalWaiter = undefined;
      return;
  }
});

const channel: ProxyChannel = {
  call(name, callId, args, approved) {
    const requestId = nextRequest++;
    return new Promise((resolve) => {
      pending.set(requestId, resolve);
      void send({
        v,
        type: 'tool-call',
        requestId,
        callId,
        name,
        arguments: args,
        ...(approved && { approved }),
      });
    });
  },
};

/** An agent run with a stub model and one tool call, and a `start` parsed: nothing leaves the process. */
async function rehearse(): Promise<void> {
  const model: IChatClient = {
    modelId: 'rehearsal',
    async *run(messages) {
      if (messages.at(-1)?.role === 'tool') {
        yield { type: 'text-delta', delta: 'ok' };
        yield { type: 'finish', reason: 'stop' };
        return;
      }
      yield { type: 'tool-call-end', callId: 'r1', name: 'noop', arguments: '{"n":1}' };
      yield { type: 'finish', reason: 'toolCalls' };
    },
  };
  const noop = defineTool({
    name: 'noop',
    description: 'does nothing',
    parameters: z.object({ n: z.number() }),
    execute: async () => toolSuccess('ok'),
  });
  const agent = new AgentBuilder('rehearsal').chatClient(model).withTool(noop).build();
  for await (const _ of agent.run('rehearse')) {
    // drained
  }
  parentMessageSchema().safeParse({
    v,
    type: 'start',
    definition: { module: 'm', export: 'e', options: {} },
    agent: 'a',
    task: 't',
    routes: { noop: 'worker-local' },
  });
}

async function loadFactory(start: StartMessage): Promise<SubAgentFactory> {
  await preloaded;
  const { module: specifier, export: name } = start.definition;
  const module = (await import(specifier)) as Record<string, unknown>;
  const factory = module[name];
  if (typeof factory !== 'function') throw new Error(`${specifier} has no function export '${name}'`);
  return factory as SubAgentFactory;
}

/** The projection as a view: worker-local tools as they are, proxied ones as stand-ins, no others. */
function projected(start: StartMessage) {
  const stand = new Map<ITool, ITool>();
  return (tools: readonly ITool[]): ITool[] =>
    tools.flatMap((tool) => {
      const route = start.routes[tool.name];
      if (route === 'worker-local') return [tool];
      if (route !== 'main-process-proxy') return [];
      let proxy = stand.get(tool);
      if (!proxy) {
        proxy = new ProxiedTool(tool, channel);
        stand.set(tool, proxy);
      }
      return [proxy];
    });
}

async function run(start: StartMessage): Promise<void> {
  const factory = await loadFactory(start);
  const { agent } = await factory(start.definition.options, { signal: controller.signal });
  // The paused run comes as data: read back with its own schema, never cast.
  const session = start.state
    ? delegatedSession(parseRunState(start.state, 'the delegation run state'))
    : new AgentSession();
  const toolView = projected(start);
  let approvals: ApprovalResponse[] | undefined = start.approvals;
  for (;;) {
    const tally = new RunTally();
    const stream = agent.run(approvals ? undefined : start.task, {
      session,
      signal: controller.signal,
      toolView,
      ...(approvals && { approvals }),
    });
    for await (const update of stream as AsyncIterable<AgentResponseUpdate>) {
      void send({ v, type: 'model-update', update });
      tally.add(update);
    }
    if (tally.paused) {
      const answered = new Promise<ApprovalResponse[]>((resolve) => {
        approvalWaiter = resolve;
      });
      await send({
        v,
        type: 'approval-request',
        requests: tally.requests,
        state: runStateJSON(delegatedRunState(session)),
      });
      approvals = await answered;
      continue;
    }
    if (tally.failure !== undefined) return void (await fail(tally.failure));
    await send({
      v,
      type: 'done',
      text: tally.answer,
      finishReason: tally.reason,
      ...(tally.usage && { usage: tally.usage }),
    });
    process.exit(0);
  }
}
