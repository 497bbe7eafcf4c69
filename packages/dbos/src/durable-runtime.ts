import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { DBOSClient } from '@dbos-inc/dbos-sdk';
import { ConfigError, parseStoreUrl } from '@raf/core';
import type { ChatClientAgent } from '@raf/framework';
import { openPostgresStore, type PostgresStore } from '@raf/postgres';
import { runAgentLegs } from './agent-legs.js';
import { runDelegation } from './delegation-body.js';
import { DurableDelegationRunner } from './delegation-runner.js';
import { DEFAULT_DELEGATION_QUEUE, DELEGATION_WORKFLOW, type DelegationOutcome } from './delegation-spec.js';
import type { RunSteps } from './durable-steps.js';
import { DurableTables } from './durable-tables.js';
import { type DurableWorkflowAgent, isWorkflowAgent, runDurableWorkflow } from './durable-workflow.js';
import { type Dbos, loadDbos } from './load-sdk.js';
import {
  DEFAULT_RUN_QUEUE,
  type DurableAgentRef,
  type DurableRunOutcome,
  type DurableRunSpec,
  RUN_WORKFLOW,
  type RunListener,
  runOutcomeSchema,
  runSpecSchema,
} from './run-spec.js';
import { durableToolView, keyOf, makeDurable, recoverDeadExecutors } from './runtime-helpers.js';
import { dbosSystemUrl } from './system-url.js';

/** Rebuilds the agent of a run from what the run recorded (a worker's way to take any run over). */
export type AgentResolver = (ref: DurableAgentRef) => Promise<ChatClientAgent | DurableWorkflowAgent>;

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
  /** The queue of sub-agents' delegations a worker consumes too (default `raf-delegations`), `concurrency` at a time. */
  delegationQueue?: string;
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
// Registered once per process (DBOS's registry is process-wide); delegations are never started
// from here by function (the coordinator's step enqueues them by name), only run.
let registered:
  | {
      run: (spec: unknown) => Promise<DurableRunOutcome>;
      delegation: (spec: unknown) => Promise<DelegationOutcome>;
    }
  | undefined;
const APP_VERSION = 'raf-durable-1';

/** The workflow body DBOS runs (and replays): it reads the process's runtime. */
async function durableRunWorkflow(input: unknown): Promise<DurableRunOutcome> {
  if (!active) throw new ConfigError('no durable runtime is open in this process');
  return active.abandonedOnShutdown(active.body(input));
}

/** The workflow of one sub-agent's delegation (a child of a durable run, on the delegation queue). */
async function durableDelegationWorkflow(input: unknown): Promise<DelegationOutcome> {
  if (!active) throw new ConfigError('no durable runtime is open in this process');
  return active.abandonedOnShutdown(active.delegation(input));
}

/**
 * DBOS in this process (one per process: DBOS is a process-wide singleton): the run workflow
 * registered, launched on the store's database with a unique executor id, a heartbeat, and for a
 * worker the recovery of dead processes' runs and the run queue.
 */
export class DurableRuntime {
  readonly executorId: string;
  private readonly agents = new Map<string, ChatClientAgent | DurableWorkflowAgent>();
  private readonly runs = new Map<string, RunSteps>();
  private readonly listeners = new Map<string, RunListener>();
  private readonly handles = new Map<string, { getResult(): Promise<unknown> }>();
  private readonly timers: NodeJS.Timeout[] = [];
  private client: Promise<DBOSClient> | undefined;
  private closing: Promise<void> | undefined;
  private recovering = false;
  private shuttingDown = false;

  private constructor(
    readonly dbos: Dbos,
    readonly tables: DurableTables,
    readonly store: PostgresStore,
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
    const store = await openPostgresStore(options.store);
    const runtime = new DurableRuntime(dbos, tables, store, { ...options });
    registered ??= {
      run: dbos.registerWorkflow(durableRunWorkflow, { name: RUN_WORKFLOW }),
      delegation: dbos.registerWorkflow(durableDelegationWorkflow, { name: DELEGATION_WORKFLOW }),
    };
    const queue = options.queue ?? DEFAULT_RUN_QUEUE;
    const delegations = options.delegationQueue ?? DEFAULT_DELEGATION_QUEUE;
    dbos.setConfig({
      name: 'raf',
      systemDatabaseUrl: dbosSystemUrl(options.store),
      systemDatabasePoolSize: 6,
      executorID: runtime.executorId,
      applicationVersion: APP_VERSION,
      logLevel: 'error',
      // A `raf run` process runs its own run only; workers take queued and recovered runs.
      listenQueues: options.role === 'worker' ? [queue, delegations] : ['raf-no-queue'],
    });
    active = runtime;
    try {
      await tables.exclusively(() => dbos.launch());
      await tables.registerExecutor(runtime.executorId, options.role ?? 'run');
      // Delegations have a queue of their own: a coordinator a worker runs never waits for a
      // slot its own sub-agents would need.
      if (options.role === 'worker')
        for (const name of [queue, delegations])
          await dbos.registerQueue(name, {
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

  /**
   * Makes `agent` durable (its model calls steps; a workflow's nodes checkpointed in the store) and
   * lets runs name it; returns its reference.
   */
  register(
    agent: ChatClientAgent | DurableWorkflowAgent,
    ref: DurableAgentRef = { name: agent.name },
  ): DurableAgentRef {
    this.agents.set(
      keyOf(ref),
      isWorkflowAgent(agent) ? agent : makeDurable(agent, () => this.currentSteps()),
    );
    return ref;
  }

  /** Starts a run here (DBOS workflow id = run id); `listener` sees its updates as they happen. */
  async start(spec: DurableRunSpec, listener?: RunListener): Promise<void> {
    if (listener) this.listeners.set(spec.runId, listener);
    const start = this.dbos.startWorkflow(registered!.run, { workflowID: spec.runId });
    const handle = await start(spec);
    // A run started here is awaited in memory (its handle), not by polling the database.
    this.handles.set(spec.runId, handle);
  }

  /** Puts a run on a queue (default the run queue): any worker consuming it runs it. */
  async enqueue(spec: DurableRunSpec, queue = this.options.queue ?? DEFAULT_RUN_QUEUE): Promise<void> {
    const start = this.dbos.startWorkflow(registered!.run, { workflowID: spec.runId, queueName: queue });
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
    this.shuttingDown = true;
    this.closing ??= (async () => {
      for (const timer of this.timers) clearInterval(timer);
      if (options.release !== false) await this.tables.release(this.executorId).catch(() => undefined);
      await this.dbos.shutdown().catch(() => undefined);
      active = undefined;
      if (this.client) await (await this.client.catch(() => undefined))?.destroy().catch(() => undefined);
      await this.tables.close().catch(() => undefined);
      await this.store.close().catch(() => undefined);
    })();
    return this.closing;
  }

  /**
   * A workflow execution of this process, which never fails because this process shuts down.
   * DBOS's shutdown marks its system database destroyed before it closes the pool: a run parked
   * in `recv` (or any wait) that polls in between gets "The system database has been shut down",
   * and DBOS would record that as the run's error while the pool still works, so a parked run
   * would show `failed` and be lost. An error once this process is shutting down leaves the
   * execution unsettled instead: nothing is recorded, the run stays PENDING, and a worker takes it
   * over (the executor is released). A cancellation is recorded by whoever cancelled.
   */
  async abandonedOnShutdown<T>(execution: Promise<T>): Promise<T> {
    try {
      return await execution;
    } catch (error) {
      if (this.shuttingDown) return new Promise<T>(() => {});
      throw error;
    }
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

  /** Takes over the runs and delegations of processes that died (`recoverDeadExecutors`). */
  private async recover(): Promise<void> {
    if (this.recovering || this.closing) return;
    this.recovering = true;
    try {
      await recoverDeadExecutors(this.dbos, this.tables, this.executorId, {
        staleMs: this.options.staleMs ?? 1500,
        queues: [
          [RUN_WORKFLOW, this.options.queue ?? DEFAULT_RUN_QUEUE],
          [DELEGATION_WORKFLOW, this.options.delegationQueue ?? DEFAULT_DELEGATION_QUEUE],
        ],
      });
    } finally {
      this.recovering = false;
    }
  }

  private async agentFor(ref: DurableAgentRef): Promise<ChatClientAgent | DurableWorkflowAgent> {
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
    const { dbos, tables } = this;
    const agent = await this.agentFor(spec.agent);
    if (isWorkflowAgent(agent)) return this.workflowBody(spec, agent);
    this.runs.set(spec.runId, { dbos, tables, runId: spec.runId, modelCalls: 0 });
    const toolView = durableToolView(
      agent,
      () => this.currentSteps(),
      (provider) =>
        new DurableDelegationRunner(this.delegationHost(), agent, provider, {
          runId: spec.runId,
          agent: spec.agent,
        }),
    );
    try {
      const listener = () => this.listeners.get(spec.runId);
      return await runAgentLegs({ dbos, store: this.store, listener, toolView }, agent, spec);
    } finally {
      this.runs.delete(spec.runId);
    }
  }

  private delegationHost() {
    return {
      dbos: this.dbos,
      tables: this.tables,
      client: () => this.dbosClient(),
      queue: this.options.delegationQueue ?? DEFAULT_DELEGATION_QUEUE,
      appVersion: APP_VERSION,
    };
  }

  private dbosClient(): Promise<DBOSClient> {
    this.client ??= import('@dbos-inc/dbos-sdk').then(({ DBOSClient }) =>
      DBOSClient.create({ systemDatabaseUrl: dbosSystemUrl(this.options.store), applicationName: 'raf' }),
    );
    return this.client;
  }

  /** The workflow of a sub-agent's delegation, on the worker that dequeued it. */
  delegation(input: unknown): Promise<DelegationOutcome> {
    const { dbos, tables, runs } = this;
    const host = { dbos, tables, runs, steps: () => this.currentSteps() };
    const agentFor = async (ref: DurableAgentRef) => {
      const agent = await this.agentFor(ref);
      if (isWorkflowAgent(agent)) throw new ConfigError(`durable delegation: ${ref.name} is a workflow`);
      return agent;
    };
    return runDelegation({ ...host, agentFor }, input);
  }

  /** A workflow's run: its nodes from the newest checkpoint on, parked while it waits for an answer. */
  private async workflowBody(spec: DurableRunSpec, agent: DurableWorkflowAgent): Promise<DurableRunOutcome> {
    const host = {
      dbos: this.dbos,
      checkpoints: this.store.checkpoints,
      listener: () => this.listeners.get(spec.runId),
    };
    const ended = await runDurableWorkflow(host, agent.workflow, spec);
    return { runId: spec.runId, sessionId: spec.sessionId, ...ended };
  }
}
