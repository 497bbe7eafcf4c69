import { getErrorMessage, userMessage } from '@raf/core';
import type { RequestContext, RouteHandler } from '../http/app.js';
import { sendJson } from '../http/app.js';
import { readBody } from '../http/body.js';
import { HttpError, methodNotAllowed, notFound, readOnly } from '../http/http-error.js';
import { openSse, sseHead } from '../http/sse.js';
import type { ServedRun } from '../runs/served-run.js';
import { openApiDocument } from './openapi.js';
import { answersBody, approvalsBody, START_RUN_MAX_BODY_BYTES, startRunBody } from './schemas.js';

/** `GET /v1/runs/{id}`'s answer. */
async function runView(run: ServedRun) {
  const record = await run.record();
  return {
    runId: record.runId,
    agent: record.agent,
    sessionId: record.sessionId,
    status: record.status,
    ...(record.finishReason && { finishReason: record.finishReason }),
    lastEventId: record.lastSeq,
    pendingApprovals: await run.pendingApprovals(),
    pendingQuestions: await run.pendingQuestions(),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** `Last-Event-ID` (header, or `?lastEventId=` for clients that cannot set headers): a sequence number. */
function lastEventId(context: RequestContext): number {
  const raw =
    context.req.headers['last-event-id'] ?? context.url.searchParams.get('lastEventId') ?? undefined;
  if (raw === undefined || raw === '') return 0;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (!/^\d{1,15}$/.test(value ?? ''))
    throw new HttpError(400, 'invalid_last_event_id', 'Last-Event-ID: expected the id of an event');
  return Number(value);
}

/**
 * `GET /v1/runs/{id}/events`: the run's events as server-sent events, `id:` = sequence number,
 * `data:` = the `raf run --json` line. From `Last-Event-ID` on (exactly the events after it);
 * the stream ends when the run stops (paused for approval, finished, failed, cancelled).
 */
export async function streamRunEvents(context: RequestContext, run: ServedRun): Promise<void> {
  const after = lastEventId(context);
  const release = context.registry.openStream(run.tenant);
  try {
    const stream = openSse(context.res);
    try {
      for await (const page of run.pages({ after, signal: context.signal })) {
        await stream.sendAll(page.map(({ seq, event }) => ({ id: seq, data: event })));
        if (stream.closed) break;
      }
    } finally {
      stream.end();
    }
  } finally {
    release();
  }
}

function tenantOf(context: RequestContext): string {
  if (context.tenant === undefined) throw new HttpError(401, 'unauthorized', 'a bearer token is required');
  return context.tenant;
}

function wrongMethod(context: RequestContext, ...allow: string[]): never {
  throw methodNotAllowed(context.res, context.req.method, context.url.pathname, allow);
}

function reads(context: RequestContext): void {
  readOnly(context.res, context.req.method, context.url.pathname);
}

/** The `/v1` API of SPEC §14.3. */
export function v1Routes(): RouteHandler {
  return async (context) => {
    const { req, res, registry } = context;
    const method = req.method ?? 'GET';
    let parts: string[];
    try {
      parts = context.url.pathname
        .split('/')
        .filter(Boolean)
        .slice(1)
        .map((p) => decodeURIComponent(p));
    } catch {
      throw notFound(context.url.pathname);
    }
    const [root, id, leaf, ...rest] = parts;
    if (rest.length > 0) throw notFound(context.url.pathname);
    if (root === 'openapi.json' && id === undefined) {
      reads(context);
      return sendJson(res, 200, openApiDocument());
    }
    const tenant = tenantOf(context);
    if (root === 'agents') {
      if (id === undefined) {
        reads(context);
        return sendJson(res, 200, {
          agents: registry.agents.list().map((a) => ({
            name: a.name,
            kind: a.kind ?? 'agent',
            ...(a.description !== undefined && { description: a.description }),
            ...(a.file !== undefined && { file: a.file }),
          })),
        });
      }
      if (leaf === 'runs') {
        // An agent that is not there is 404 whatever the method.
        registry.agents.get(id);
        if (method !== 'POST') wrongMethod(context, 'POST');
        // This body may carry files (content parts): a larger limit than the API's other bodies.
        const limit = Math.max(context.maxBodyBytes, START_RUN_MAX_BODY_BYTES);
        const body = await readBody(req, startRunBody, limit);
        const run = await registry.start(id, {
          input: typeof body.input === 'string' ? body.input : userMessage(body.input),
          tenant,
          ...(body.sessionId !== undefined && { sessionId: body.sessionId }),
        });
        res.setHeader('location', `/v1/runs/${run.runId}`);
        return sendJson(res, 201, { runId: run.runId, sessionId: run.sessionId });
      }
      throw notFound(context.url.pathname);
    }
    if (root === 'runs' && id !== undefined) {
      const run = await registry.require(id, tenant);
      if (leaf === undefined) {
        reads(context);
        return sendJson(res, 200, await runView(run));
      }
      if (leaf === 'events') {
        reads(context);
        if (method === 'HEAD') return sseHead(res);
        return streamRunEvents(context, run);
      }
      if (leaf === 'approvals') {
        if (method !== 'POST') wrongMethod(context, 'POST');
        const body = await readBody(req, approvalsBody, context.maxBodyBytes);
        const approvals = body.approvals.map((a) =>
          a.approved
            ? { callId: a.callId, approved: true }
            : { callId: a.callId, approved: false, reason: a.reason ?? 'Denied through the API' },
        );
        const resumed = await registry.approve(run.runId, tenant, approvals);
        return sendJson(res, 202, { runId: resumed.runId, sessionId: resumed.sessionId });
      }
      if (leaf === 'answers') {
        if (method !== 'POST') wrongMethod(context, 'POST');
        const body = await readBody(req, answersBody, context.maxBodyBytes);
        await registry.answer(run.runId, tenant, body.answers);
        return sendJson(res, 202, { runId: run.runId, sessionId: run.sessionId });
      }
      if (leaf === 'cancel') {
        if (method !== 'POST') wrongMethod(context, 'POST');
        await registry.cancel(run.runId, tenant);
        return sendJson(res, 200, await runView(run));
      }
      throw notFound(context.url.pathname);
    }
    if (root === 'sessions' && id !== undefined && leaf === undefined) {
      if (method === 'GET' || method === 'HEAD') {
        const session = await registry.session(id, tenant);
        if (!session) throw notFound(`session ${id}`);
        return sendJson(res, 200, {
          id: session.id,
          messages: session.messages,
          metadata: session.metadata,
          ...(session.pendingApproval && { pendingApproval: session.pendingApproval }),
          createdAt: session.createdAt,
          updatedAt: session.updatedAt,
        });
      }
      if (method === 'DELETE') {
        if (!(await registry.deleteSession(id, tenant))) throw notFound(`session ${id}`);
        res.writeHead(204).end();
        return;
      }
      wrongMethod(context, 'GET', 'HEAD', 'DELETE');
    }
    throw notFound(context.url.pathname);
  };
}

/**
 * `/healthz` (the process answers) and `/readyz` (the store answers too). Both need no token, so
 * a store's failure is told to the log only: its message may name a database host, a user or a
 * file path.
 */
export function healthRoutes(
  ready: (signal: AbortSignal) => Promise<void>,
  log?: (line: string) => void,
): RouteHandler {
  return async (context) => {
    reads(context);
    if (context.url.pathname === '/healthz') return sendJson(context.res, 200, { ok: true });
    try {
      await ready(context.signal);
      return sendJson(context.res, 200, { ok: true });
    } catch (error) {
      log?.(`/readyz: the store does not answer: ${getErrorMessage(error)}`);
      return sendJson(context.res, 503, { ok: false, error: 'the store does not answer' });
    }
  };
}
