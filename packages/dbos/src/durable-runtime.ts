import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  type AgentResponseUpdate,
  type ApprovalResponse,
  ConfigError,
  type FinishReason,
  type ITool,
  parseStoreUrl,
  type ToolApprovalRequestUpdate,
} from '@raf/core';
import {
  AgentSession,
  type ChatClientAgent,
  createStore,
  parseSessionSnapshot,
  type RafStore,
  SubAgentsProvider,
} from '@raf/framework';
import { DurableModelClient, durableTool, type RunSteps } from './durable-steps.js';
import { DurableTables } from './durable-tables.js';
import { type Dbos, loadDbos } from './load-sdk.js';
import {
  approvalsSchema,
  approvalTopic,
  DEFAULT_RUN_QUEUE,
  type DurableAgentRef,
  type DurableRunOutcome,
  type DurableRunSpec,
  RUN_WORKFLOW,
  type RunListener,
  type RunState,
  runOutcomeSchema,
  runSpecSchema,
  STATUS_EVENT,
} from './run-spec.js';

/** Rebuilds the agent of a run from what the run recorded (a worker's way to take any run over). */
export type AgentResolver = (ref: DurableAgentRef) => Promise<ChatClientAgent>;

export interface DurableRuntimeOptions {
  /** `postgres://…`: sessions (`@raf/postgres`), DBOS's system tables (schema `dbos`) and RAF's. */
  store: string;
  /** `worker`: consumes the run queue and takes over the runs of dead processes. */
  role?: 'run' | 'worker';
  /** Agents a run names that were not registered in this process (`register`) are rebuilt by it. */
  resolve?: AgentResolver;
  /** The queue a worker consumes (default `raf-runs`) and how many runs it holds at once (default 10). */
  queue?: string;
  concurrency?: number;
  /** How often this process says it is alive (default 250 ms). */
  heartbeatMs?: number;
  /** A process on another host whose heartbeat is older is dead (default 1500 ms). */
  staleMs?: number;
  /** Another process took this one's runs over (it was thought dead): stop at once. */
  onFenced?: () => void;
  /**
   * The listener of a run this process executes that nobody here listens to (one a worker took
   * over, or one started without a listener): `raf serve --durable` writes every run's events
   * from whichever replica executes it.
   */
  observe?: (spec: DurableRunSpec) => RunListener | undefined;
}

let active: DurableRuntime | undefined;
let opening: Promise<DurableRuntime> | undefined;
let registered: ((spec: unknown) => Promise<DurableRunOutcome>) | undefined;
const APP_VERSION = 'raf-durable-1';
const PARKED_SECONDS = 24 * 3600;

/** The workflow body DBOS runs (and replays): it reads the process's runtime. */
async function durableRunWorkflow(input: unknown): Promise<DurableRunOutcome> {
  if (!active) throw new ConfigError('no durable runtime is open in this process');
  return active.body(input);
}

/**
 * DBOS in this process (one per process: DBOS is a process-wide singleton): the run workflow
 * registered, launched on the store's database with a unique executor id, a heartbeat, and for a
 * worker the recovery of dead processes' runs and the run queue.
 */
export class DurableRuntime {
  readonly executorId: string;
  private readonly agents = new Map<string, ChatClientAgent>();
  private readonly runs = new Map<string, RunSteps>();
  private readonly listeners = new Map<string, RunListener>();
  private readonly handles = new Map<string, { getResult(): Promise<unknown> }>();
  private readonly timers: NodeJS.Timeout[] = [];
  private closing: Promise<void> | undefined;
  private recovering = false;

  private constructor(
    readonly dbos: Dbos,
    readonly tables: DurableTables,
    readonly store: RafStore,
    private readonly options: DurableRuntimeOptions,
  ) {
    this.executorId = `raf-${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  }

  /** The process's runtime: opened on first use, shared after (one store URL per process). */
  static async open(options: DurableRuntimeOptions): Promise<DurableRuntime> {
    if (active) {
      if (active.options.store !== options.store)
        throw new ConfigError('this process already runs durable runs on another store');
      if (options.resolve && !active.options.resolve) active.options.resolve = options.resolve;
      return active;
    }
    opening ??= DurableRuntime.launch(options).finally(() => {
      opening = undefined;
    });
    return opening;
  }

  private static async launch(options: DurableRuntimeOptions): Promise<DurableRuntime> {
    if (parseStoreUrl(options.store).kind !== 'postgres')
      throw new ConfigError('durable runs need a postgres://… store (--store postgres://…)');
    const dbos = await loadDbos();
    const tables = await DurableTables.open(options.store);
    const store = await createStore(options.store, { importPackage: async () => import('@raf/postgres') });
    const runtime = new DurableRuntime(dbos, tables, store, { ...options });
    registered ??= dbos.registerWorkflow(durableRunWorkflow, { name: RUN_WORKFLOW });
    const queue = options.queue ?? DEFAULT_RUN_QUEUE;
    dbos.setConfig({
      name: 'raf',
      systemDatabaseUrl: options.store,
      systemDatabasePoolSize: 6,
      executorID: runtime.executorId,
      applicationVersion: APP_VERSION,
      logLevel: 'error',
      // A `raf run` process runs its own run only; workers take queued and recovered runs.
      listenQueues: options.role === 'worker' ? [queue] : ['raf-no-queue'],
    });
    active = runtime;
    try {
      await tables.exclusively(() => dbos.launch());
      await tables.registerExecutor(runtime.executorId, options.role ?? 'run');
      if (options.role === 'worker')
        await dbos.registerQueue(queue, {
          workerConcurrency: options.concurrency ?? 10,
          minPollingIntervalMs: 50,
          onConflict: 'always_update',
        });
    } catch (error) {
      active = undefined;
      await dbos.shutdown().catch(() => undefined);
      await tables.close().catch(() => undefined);
      await store.close().catch(() => undefined);
      throw error;
    }
    runtime.every(options.heartbeatMs ?? 250, () => runtime.beat());
    if (options.role === 'worker') runtime.every(options.heartbeatMs ?? 250, () => runtime.recover());
    return runtime;
  }

  /** Makes `agent` durable (its model calls steps) and lets runs name it; returns its reference. */
  register(agent: ChatClientAgent, ref: DurableAgentRef = { name: agent.name }): DurableAgentRef {
    // A sub-agent's approval suspends its delegation call, which a step cannot record: refused
    // until delegations are child workflows, rather than failing at the first sub-agent approval.
    if (agent.contextProviders.some((p) => p instanceof SubAgentsProvider))
      throw new ConfigError(
        `agent ${agent.name} has sub-agents: durable runs do not delegate yet (run it without --durable)`,
      );
    this.agents.set(
      keyOf(ref),
      makeDurable(agent, () => this.currentSteps()),
    );
    return ref;
  }

  /** Starts a run here (DBOS workflow id = run id); `listener` sees its updates as they happen. */
  async start(spec: DurableRunSpec, listener?: RunListener): Promise<void> {
    if (listener) this.listeners.set(spec.runId, listener);
    const start = this.dbos.startWorkflow(registered!, { workflowID: spec.runId });
    const handle = await start(spec);
    // A run started here is awaited in memory (its handle), not by polling the database.
    this.handles.set(spec.runId, handle);
  }

  /** Puts a run on a queue (default the run queue): any worker consuming it runs it. */
  async enqueue(spec: DurableRunSpec, queue = this.options.queue ?? DEFAULT_RUN_QUEUE): Promise<void> {
    const start = this.dbos.startWorkflow(registered!, { workflowID: spec.runId, queueName: queue });
    await start(spec);
  }

  /** The run's outcome when it ends (in this process or any other). */
  async result(runId: string): Promise<DurableRunOutcome | null> {
    const handle = this.handles.get(runId);
    try {
      const outcome = handle
        ? await handle.getResult()
        : await this.dbos.getResult<unknown>(runId, { pollingIntervalMs: 100 });
      return outcome === null ? null : (runOutcomeSchema.parse(outcome) as DurableRunOutcome);
    } catch (error) {
      // Cancelled (`raf runs cancel`): an ending like a plain run's `cancelled`, not a failure.
      const status = await this.dbos.getWorkflowStatus(runId).catch(() => null);
      if (status?.status !== 'CANCELLED') throw error;
      const spec = runSpecSchema.safeParse(status.input?.[0]);
      return { runId, sessionId: spec.success ? spec.data.sessionId : runId, reason: 'cancelled', text: '' };
    } finally {
      this.handles.delete(runId);
    }
  }

  /** Tells `listener` of the run's updates and pauses while it runs in this process. */
  listen(runId: string, listener: RunListener): void {
    this.listeners.set(runId, listener);
  }

  detach(runId: string): void {
    this.listeners.delete(runId);
  }

  /** Stops taking work; the runs held here are released to the workers (`release`). */
  close(options: { release?: boolean } = {}): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of this.timers) clearInterval(timer);
      if (options.release !== false) await this.tables.release(this.executorId).catch(() => undefined);
      await this.dbos.shutdown().catch(() => undefined);
      active = undefined;
      await this.tables.close().catch(() => undefined);
      await this.store.close().catch(() => undefined);
    })();
    return this.closing;
  }

  private currentSteps(): RunSteps | undefined {
    const id = this.dbos.workflowID;
    return id === undefined ? undefined : this.runs.get(id);
  }

  private every(ms: number, task: () => Promise<void>): void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void task()
        .catch(() => undefined)
        .finally(() => {
          busy = false;
        });
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }

  private async beat(): Promise<void> {
    if (this.closing) return;
    if (!(await this.tables.heartbeat(this.executorId))) this.options.onFenced?.();
  }

  /**
   * Takes over the runs of processes that died: on this host a process whose pid is gone, on
   * another one whose heartbeat is older than `staleMs`, or one that released its runs. One worker
   * claims each dead process (compare-and-set); its pending runs go on the run queue.
   */
  private async recover(): Promise<void> {
    if (this.recovering || this.closing) return;
    this.recovering = true;
    try {
      const now = Date.now();
      const stale = this.options.staleMs ?? 1500;
      for (const row of await this.tables.candidates(this.executorId)) {
        const dead = row.released
          ? true
          : row.host === hostname()
            ? !pidAlive(row.pid) || now - row.heartbeat_at > 60_000
            : now - row.heartbeat_at > stale;
        if (!dead || !(await this.tables.claimExecutor(row.executor_id, this.executorId))) continue;
        const pending = await this.dbos.listWorkflows({
          status: 'PENDING',
          executorId: row.executor_id,
          workflowName: RUN_WORKFLOW,
          loadInput: false,
          loadOutput: false,
        });
        for (const run of pending)
          await this.dbos.resumeWorkflow(run.workflowID, {
            queueName: this.options.queue ?? DEFAULT_RUN_QUEUE,
          });
      }
      await this.tables.forgetRecovered(10 * 60_000);
    } finally {
      this.recovering = false;
    }
  }

  private async agentFor(ref: DurableAgentRef): Promise<ChatClientAgent> {
    const key = keyOf(ref);
    const known = this.agents.get(key);
    if (known) return known;
    if (!this.options.resolve)
      throw new ConfigError(`durable run of agent ${ref.name}: this process cannot rebuild it (no resolver)`);
    this.register(await this.options.resolve(ref), ref);
    const durable = this.agents.get(key);
    if (!durable) throw new ConfigError(`durable run of agent ${ref.name}: not registered`);
    return durable;
  }

  /** The workflow: the agent's turns on the session, parked between them while approvals wait. */
  async body(input: unknown): Promise<DurableRunOutcome> {
    const spec = runSpecSchema.parse(input);
    if (!this.listeners.has(spec.runId)) {
      const observer = this.options.observe?.(spec);
      if (observer) this.listeners.set(spec.runId, observer);
    }
    const listener = () => this.listeners.get(spec.runId);
    try {
      const outcome = await this.legs(spec);
      listener()?.stopped?.({ outcome });
      return outcome;
    } catch (error) {
      listener()?.stopped?.({ error });
      throw error;
    } finally {
      this.runs.delete(spec.runId);
      this.listeners.delete(spec.runId);
    }
  }

  private async legs(spec: DurableRunSpec): Promise<DurableRunOutcome> {
    const { dbos } = this;
    const agent = await this.agentFor(spec.agent);
    const steps: RunSteps = { dbos, tables: this.tables, runId: spec.runId, modelCalls: 0 };
    this.runs.set(spec.runId, steps);
    const wrapped = new WeakMap<ITool, ITool>();
    const toolView = (tools: readonly ITool[]) =>
      tools.map((tool) => {
        const known = wrapped.get(tool);
        if (known) return known;
        const durable = durableTool(tool, () => this.currentSteps());
        wrapped.set(tool, durable);
        return durable;
      });
    try {
      const snapshot = await dbos.runStep(
        async () => (await this.store.sessions.load(spec.sessionId)) ?? null,
        { name: 'session:load' },
      );
      const session = snapshot
        ? AgentSession.fromJSON(parseSessionSnapshot(snapshot))
        : new AgentSession(spec.sessionId);
      let approvals: ApprovalResponse[] | undefined;
      for (let leg = 0; ; leg++) {
        const turn = await this.turn(
          spec.runId,
          agent.run(approvals ? undefined : spec.input, {
            session,
            toolView,
            ...(approvals && { approvals }),
          }),
        );
        await dbos.runStep(async () => this.store.sessions.save(session.toJSON()), {
          name: `session:save:${leg}`,
        });
        if (turn.reason !== 'awaitingApproval') {
          await dbos.setEvent(STATUS_EVENT, { state: 'ended', reason: turn.reason } satisfies RunState);
          return {
            runId: spec.runId,
            sessionId: session.id,
            reason: turn.reason,
            text: turn.text,
            ...(turn.error && { error: turn.error }),
          };
        }
        const paused = { state: 'paused' as const, pause: leg, requests: turn.requests };
        await dbos.setEvent(STATUS_EVENT, paused satisfies RunState);
        this.listeners.get(spec.runId)?.paused?.(paused);
        let answer: unknown = null;
        while (answer === null) answer = await dbos.recv(approvalTopic(leg), PARKED_SECONDS);
        approvals = approvalsSchema.parse(answer);
        await dbos.setEvent(STATUS_EVENT, { state: 'running' } satisfies RunState);
      }
    } finally {
      this.runs.delete(spec.runId);
    }
  }

  private async turn(runId: string, updates: AsyncIterable<AgentResponseUpdate>) {
    let reason: FinishReason = 'other';
    let text = '';
    let error: { code: string; message: string } | undefined;
    const requests: ToolApprovalRequestUpdate[] = [];
    for await (const update of updates) {
      this.listeners.get(runId)?.update(update);
      if (update.type === 'text-delta') text += update.delta;
      else if (update.type === 'tool-approval-request') requests.push(update);
      else if (update.type === 'error') error = { code: update.code, message: update.message };
      else if (update.type === 'finish') reason = update.reason;
    }
    return { reason, text, error, requests };
  }
}

function keyOf(ref: DurableAgentRef): string {
  return ref.file
    ? `file:${ref.cwd ?? ''}:${ref.file}:${JSON.stringify(ref.overrides ?? {})}`
    : `name:${ref.name}`;
}

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The agent with the step decorator around its model client: each model call of its runs is a
 * step (`model:<n>`), from outside the loop (`ChatClientAgent.withChatClient`).
 */
function makeDurable(agent: ChatClientAgent, steps: () => RunSteps | undefined): ChatClientAgent {
  return agent.withChatClient((client) => new DurableModelClient(client, steps));
}
