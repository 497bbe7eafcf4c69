import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import type { RunEvent } from '@raf/framework';
import type { RequestContext } from '../http/app.js';
import { readBody, readJsonBody } from '../http/body.js';
import { HttpError, methodNotAllowed, notFound, readOnly } from '../http/http-error.js';
import { openSse, sseHead } from '../http/sse.js';
import type { ServedRun } from '../runs/served-run.js';
import { CLIENT_SESSION_ID } from '../runs/tenant-sessions.js';
import { agUiIntent, toAgUiEvents } from './ag-ui.js';
import {
  chatIntent,
  chatRequestSchema,
  toUIMessageChunks,
  UI_MESSAGE_STREAM_HEADERS,
} from './ui-message-stream.js';

export function tenantOf(context: RequestContext): string {
  if (context.tenant === undefined) throw new HttpError(401, 'unauthorized', 'a bearer token is required');
  return context.tenant;
}

export function onlyPost(context: RequestContext): void {
  if (context.req.method !== 'POST')
    throw methodNotAllowed(context.res, context.req.method, context.url.pathname, ['POST']);
}

/** The run's events after `after`, until it stops (or the client goes away). */
async function* eventsOf(run: ServedRun, after: number, signal: AbortSignal): AsyncGenerator<RunEvent> {
  for await (const { event } of run.events({ after, signal })) yield event;
}

/**
 * A paused run of `agent` resumed with `approvals`: the stream shows only what follows (the events
 * up to the pause were streamed by the request that paused it).
 */
async function resume(
  context: RequestContext,
  agent: string,
  runId: string,
  approvals: Parameters<RequestContext['registry']['approve']>[2],
): Promise<{ run: ServedRun; after: number }> {
  const tenant = tenantOf(context);
  const paused = await context.registry.require(runId, tenant);
  if (paused.agent !== agent) throw notFound(`run ${runId}`);
  const after = (await paused.record(context.signal)).lastSeq;
  return { run: await context.registry.approve(runId, tenant, approvals), after };
}

/**
 * `POST /v1/agents/{name}/chat`: `useChat`'s default request (`DefaultChatTransport`: `{id,
 * messages, trigger}`), answered with the UI message stream. The chat id is the session; the last
 * user message is the turn's input. An assistant message whose approvals were answered
 * (`addToolApprovalResponse`) resumes the run its metadata names. The run is a served run: the
 * `/v1` API sees it too, and it goes on if the page goes away.
 */
export async function chatRoute(context: RequestContext, agent: string): Promise<void> {
  // The token first, then the agent (404 whatever the method), then the method.
  const tenant = tenantOf(context);
  context.registry.agents.get(agent);
  onlyPost(context);
  const body = await readBody(context.req, chatRequestSchema, context.maxBodyBytes);
  const intent = chatIntent(body);
  if (!intent)
    throw new HttpError(
      400,
      'invalid_field',
      'messages: the last message must be a user message, or an assistant message with answered approvals and its metadata.runId',
    );
  let run: ServedRun;
  let after = 0;
  let denied: Set<string> | undefined;
  let messageId: string | undefined;
  if (intent.kind === 'turn') {
    if (intent.input.trim() === '')
      throw new HttpError(400, 'invalid_field', 'messages: the user message has no text');
    run = await context.registry.start(agent, { input: intent.input, sessionId: body.id, tenant });
  } else {
    ({ run, after } = await resume(context, agent, intent.runId, intent.approvals));
    denied = new Set(intent.approvals.filter((a) => !a.approved).map((a) => a.callId));
    messageId = intent.messageId;
  }
  const stream = openSse(context.res, { ...UI_MESSAGE_STREAM_HEADERS });
  try {
    const chunks = toUIMessageChunks(
      eventsOf(run, after, context.signal),
      { runId: run.runId, sessionId: run.sessionId },
      { ...(denied && { denied }), ...(messageId && { messageId }) },
    );
    for await (const chunk of chunks) {
      await stream.send(chunk);
      if (stream.closed) return;
    }
    context.res.write('data: [DONE]\n\n');
  } finally {
    stream.end();
  }
}

/**
 * `GET /v1/agents/{name}/chat/{id}/stream`: the AI SDK's resumable streams (`useChat({ resume:
 * true })`, `resumeStream()`): the chat's run still running is streamed again from its turn's start, on
 * any replica (its events are in the store); none running is `204`, as the SDK expects.
 */
export async function chatResumeRoute(context: RequestContext, agent: string, chatId: string): Promise<void> {
  const tenant = tenantOf(context);
  context.registry.agents.get(agent);
  readOnly(context.res, context.req.method, context.url.pathname);
  if (!CLIENT_SESSION_ID.test(chatId)) throw notFound(context.url.pathname);
  const run = await context.registry.latestRun(chatId, tenant);
  if (!run || run.agent !== agent || (await run.record(context.signal)).status !== 'running') {
    context.res.writeHead(204).end();
    return;
  }
  if (context.req.method === 'HEAD') return sseHead(context.res, { ...UI_MESSAGE_STREAM_HEADERS });
  // Counted like `/v1/runs/{id}/events`: a reader of a run, not a run, so no run limit caps it.
  const release = context.registry.openStream(tenant);
  const stream = openSse(context.res, { ...UI_MESSAGE_STREAM_HEADERS });
  try {
    // A run resumed after approvals: its current turn, after the pause's `finish`.
    const after = await run.lastFinish();
    const chunks = toUIMessageChunks(eventsOf(run, after, context.signal), {
      runId: run.runId,
      sessionId: run.sessionId,
    });
    for await (const chunk of chunks) {
      await stream.send(chunk);
      if (stream.closed) return;
    }
    context.res.write('data: [DONE]\n\n');
  } finally {
    stream.end();
    release();
  }
}

/**
 * `POST /v1/agents/{name}/ag-ui`: a `RunAgentInput` (checked with `@ag-ui/core`'s schema), answered
 * with AG-UI events as SSE. The thread is the session; `resume` entries answer the approval
 * interrupts of the run that paused.
 */
export async function agUiRoute(context: RequestContext, agent: string): Promise<void> {
  // The token first, then the agent (404 whatever the method), then the method.
  const tenant = tenantOf(context);
  context.registry.agents.get(agent);
  onlyPost(context);
  const parsed = RunAgentInputSchema.safeParse(await readJsonBody(context.req, context.maxBodyBytes));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? issue.path.map(String).join('.') : 'body';
    throw new HttpError(400, 'invalid_field', `${at}: ${issue?.message ?? 'invalid'}`);
  }
  const input = parsed.data;
  const intent = agUiIntent(input);
  if (intent.kind === 'invalid') throw new HttpError(400, 'invalid_field', intent.message);
  let run: ServedRun;
  let after = 0;
  if (intent.kind === 'turn') {
    if (intent.input.trim() === '')
      throw new HttpError(400, 'invalid_field', 'messages: the user message has no text');
    run = await context.registry.start(agent, { input: intent.input, sessionId: input.threadId, tenant });
  } else ({ run, after } = await resume(context, agent, intent.servedRunId, intent.approvals));
  const stream = openSse(context.res);
  try {
    const ids = { threadId: input.threadId, runId: input.runId, servedRunId: run.runId };
    for await (const event of toAgUiEvents(eventsOf(run, after, context.signal), ids)) {
      await stream.send(event);
      if (stream.closed) return;
    }
  } finally {
    stream.end();
  }
}
