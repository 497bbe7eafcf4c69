import type { ServerResponse } from 'node:http';
import {
  type A2ARunEvent,
  type A2ATurn,
  agentCardFor,
  answerA2AJsonRpc,
  createA2ARequestHandler,
  RafAgentExecutor,
  TenantUser,
} from '@raf/a2a';
import type { RequestContext, RouteHandler } from '../http/app.js';
import { sendJson } from '../http/app.js';
import { readJsonBody } from '../http/body.js';
import { HttpError, notFound, readOnly } from '../http/http-error.js';
import type { RunRegistry } from '../runs/run-registry.js';
import type { ServedAgent } from '../runs/served-agents.js';
import type { ServedRun } from '../runs/served-run.js';
import { storedTaskStore, taskRunKey } from './a2a-task-store.js';
import { onlyPost, tenantOf } from './chat-routes.js';

/** Where an agent's A2A endpoint is: `POST /a2a/{name}` (JSON-RPC), its card below it. */
export const a2aPath = (name: string) => `/a2a/${encodeURIComponent(name)}`;
export const CARD_PATH = '/.well-known/agent-card.json';

export interface A2AOptions {
  /** The URL clients reach this server at (`https://agents.example.com`), for the cards; default the bound address. */
  publicUrl?: string;
}

/**
 * The base URL a card names: the configured one, else the address the server is bound to. Never
 * the request's `Host`: a card is public, and a forged Host would make it send clients (and
 * their tokens) elsewhere.
 */
function baseUrl(context: RequestContext, options: A2AOptions): string {
  if (options.publicUrl) return options.publicUrl.replace(/\/+$/, '');
  return context.serverUrl;
}

/**
 * One agent over A2A 1.0 (and 0.3), on `@a2a-js/sdk`'s request handler: each task is a served run
 * of the caller's tenant (its context the session), so `/v1` sees A2A runs like any other. Tasks
 * are kept per tenant by the SDK's task store (another tenant's task is "not found").
 */
class A2AAgent {
  readonly handler: ReturnType<typeof createA2ARequestHandler>;
  /** The served run (and its tenant) of each A2A task that may be resumed (paused for approval) in this replica. */
  private readonly runs = new Map<string, { runId: string; tenant: string }>();

  constructor(
    private readonly agent: ServedAgent,
    private readonly registry: RunRegistry,
  ) {
    const executor = new RafAgentExecutor(
      (turn) => this.turn(turn),
      async (taskId) => {
        // `tasks/cancel` of a task waiting for approvals: its run is cancelled (its calls denied).
        const paused = this.runs.get(taskId);
        if (paused) await registry.cancel(paused.runId, paused.tenant);
        this.runs.delete(taskId);
      },
    );
    // The handler's own copy of the card only answers capability checks; clients read the one
    // served per request (with the URL they reached).
    const card = agentCardFor({
      name: agent.name,
      url: `http://127.0.0.1${a2aPath(agent.name)}`,
      legacyCompat: true,
    });
    this.handler = createA2ARequestHandler(
      card,
      executor,
      storedTaskStore(registry.runStore, agent.name, (taskId, tenant) => this.cancelRun(taskId, tenant)),
    );
  }

  /**
   * A task saved as cancelled: its run is cancelled wherever it runs (another replica stops it
   * when it sees the request). Its own replica cancelled it already; a stopped run is left as
   * it is, so this is then a read.
   */
  private async cancelRun(taskId: string, tenant: string): Promise<void> {
    const runId = await this.registry.runStore.loadTask(tenant, taskRunKey(this.agent.name, taskId));
    if (runId === undefined) return;
    try {
      await this.registry.cancel(runId, tenant);
    } catch (error) {
      // The run is gone (its records pruned): nothing is left to stop.
      if (!(HttpError.isHttpError(error) && error.status === 404)) throw error;
    }
  }

  card(base: string) {
    return agentCardFor({
      name: this.agent.name,
      ...(this.agent.description && { description: this.agent.description }),
      url: `${base}${a2aPath(this.agent.name)}`,
      bearer: true,
      legacyCompat: true,
    });
  }

  private async *turn(turn: A2ATurn): AsyncGenerator<A2ARunEvent> {
    const tenant = turn.user;
    if (tenant === undefined) throw new HttpError(401, 'unauthorized', 'a bearer token is required');
    let run: ServedRun;
    let after = 0;
    if (turn.approvals) {
      // Paused here, or by another replica (or this one before a restart): the run id is stored.
      const runId =
        this.runs.get(turn.taskId)?.runId ??
        (await this.registry.runStore.loadTask(tenant, taskRunKey(this.agent.name, turn.taskId)));
      if (!runId) throw notFound(`task ${turn.taskId}`);
      const paused = await this.registry.require(runId, tenant);
      after = (await paused.record()).lastSeq;
      run = await this.registry.approve(runId, tenant, turn.approvals);
    } else {
      run = await this.registry.start(this.agent.name, {
        input: turn.text,
        sessionId: turn.contextId,
        tenant,
        signal: turn.signal,
      });
    }
    this.runs.set(turn.taskId, { runId: run.runId, tenant });
    // Any replica that is asked to cancel the task finds its run here.
    try {
      await this.registry.runStore.saveTask(tenant, taskRunKey(this.agent.name, turn.taskId), run.runId);
    } catch (error) {
      // Unsaved, the run could not be cancelled through another replica: it is stopped here, and
      // the task fails with the store's error, rather than a run going on behind a failed task.
      this.runs.delete(turn.taskId);
      await this.registry.cancel(run.runId, tenant).catch(() => undefined);
      throw error;
    }
    let paused = false;
    try {
      // Not bound to the turn's signal: a cancelled run still ends with its `finish`.
      for await (const { event } of run.events({ after })) {
        if (event.type === 'finish') paused = event.reason === 'awaitingApproval';
        yield event as A2ARunEvent;
      }
    } finally {
      if (!paused) this.runs.delete(turn.taskId);
    }
  }
}

/**
 * The A2A routes of the served agents: for each, its card at `/a2a/{name}/.well-known/agent-card.json`
 * (public, as discovery is) and JSON-RPC at `POST /a2a/{name}` (a bearer token, like the `/v1`
 * API); the root `/.well-known/agent-card.json` is the card of the only agent when there is one.
 */
export function a2aRoutes(registry: RunRegistry, options: A2AOptions = {}) {
  const agents = new Map(registry.agents.list().map((a) => [a.name, new A2AAgent(a, registry)]));
  const only = agents.size === 1 ? [...agents.values()][0] : undefined;

  const cards: RouteHandler = (context) => {
    readOnly(context.res, context.req.method, context.url.pathname);
    const path = context.url.pathname;
    const name = path === CARD_PATH ? undefined : decodeURIComponent(path.split('/')[2] ?? '');
    const agent = name === undefined ? only : agents.get(name);
    if (!agent)
      throw notFound(
        name === undefined
          ? `${CARD_PATH}: this server has several agents; each card is at /a2a/{name}${CARD_PATH}`
          : `agent ${name}`,
      );
    sendJson(context.res, 200, agent.card(baseUrl(context, options)));
  };

  const jsonRpc: RouteHandler = async (context) => {
    const tenant = tenantOf(context);
    const name = decodeURIComponent(context.url.pathname.split('/')[2] ?? '');
    const agent = agents.get(name);
    if (!agent || context.url.pathname !== a2aPath(name)) throw notFound(context.url.pathname);
    // After the path check: a 405 says the path exists (and takes POST).
    onlyPost(context);
    let body: unknown;
    try {
      body = await readJsonBody(context.req, context.maxBodyBytes);
    } catch (error) {
      // Not JSON, or nested too deep: a JSON-RPC parse error, as a JSON-RPC client expects.
      if (!HttpError.isHttpError(error) || error.status !== 400) throw error;
      return sendJson(context.res, 200, {
        jsonrpc: '2.0',
        id: null,
        error: { code: error.reason === 'too_deep' ? -32600 : -32700, message: error.message },
      });
    }
    const reply = await answerA2AJsonRpc(await agent.handler, body, context.req.headers, {
      user: new TenantUser(tenant),
      legacyCompat: true,
    });
    if ('body' in reply) {
      context.res.writeHead(reply.status, { ...reply.headers, 'cache-control': 'no-store' });
      context.res.end(reply.body);
      return;
    }
    context.res.writeHead(reply.status, reply.headers);
    context.res.flushHeaders();
    for await (const chunk of reply.events) {
      if (context.res.destroyed) break;
      if (!context.res.write(chunk)) await drained(context.res);
    }
    context.res.end();
  };

  return { cards, jsonRpc, names: [...agents.keys()] };
}

/** Resolves once the client reads again, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
