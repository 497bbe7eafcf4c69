import type { IncomingMessage, ServerResponse } from 'node:http';
import { RUNTIME_LABELS } from '@raf/framework';
import { ATTACHMENT_MAX_BYTES } from '../attachments.js';
import { onlyFields, openEventStream, readJsonObject, StudioHttpError, sendJson } from './http-json.js';
import type { ServeClient } from './serve-client.js';
import { attachedMessage, RUN_BODY_MAX_BYTES } from './studio-attachments.js';
import { parseAnswer } from './studio-questions.js';
import { parseApprovals } from './studio-runs.js';

/**
 * The studio API when `raf studio --server URL` points it at a `raf serve` (issue 31): the page
 * asks its own studio as always; the conversations are runs on that server, through its /v1
 * API (agents, runs, events resumed after the last one seen, approvals, questions, cancel). The Tools and
 * Agent pages read local agent files and governance, which the server does not publish: those
 * routes answer 404 with the reason, and `GET /api/config` tells the page so.
 */
export class RemoteStudio {
  /** The last event seen of each run that may go on (paused for approval): a resume reads after it. */
  private readonly lastSeen = new Map<string, number>();
  private readonly active = new Set<AbortController>();
  /**
   * The `questionId` of each call's latest streamed question (`run\0callId`): the page's card
   * answers by `callId`, the server by `questionId` (a call may ask more than once).
   */
  private readonly questionIds = new Map<string, string>();

  constructor(private readonly client: ServeClient) {}

  async route(
    route: string,
    parts: string[],
    req: IncomingMessage,
    res: ServerResponse,
    signal: AbortSignal,
  ) {
    switch (route) {
      case 'GET /config':
        return sendJson(res, 200, {
          server: this.client.origin,
          attachments: true,
          attachmentMaxBytes: ATTACHMENT_MAX_BYTES,
        });
      case 'GET /labels':
        return sendJson(res, 200, RUNTIME_LABELS);
      case 'GET /agents': {
        const agents = await this.client.agents(signal);
        return sendJson(res, 200, {
          agents: agents.map((a) => ({
            id: a.name,
            name: a.name,
            file: a.file ?? this.client.origin,
            kind: a.kind,
          })),
        });
      }
      case 'POST /agents/:/runs': {
        const agent = decodeURIComponent(parts[1]!);
        const body = await readJsonObject(req, RUN_BODY_MAX_BYTES);
        onlyFields(body, ['input', 'sessionId', 'attachments']);
        const { input, attachments } = body;
        if (typeof input !== 'string' || (input.trim() === '' && attachments === undefined))
          throw new StudioHttpError(400, 'invalid_field', 'input: expected the text of the message');
        if (body.sessionId !== undefined && typeof body.sessionId !== 'string')
          throw new StudioHttpError(400, 'invalid_field', 'sessionId: expected a string');
        // Files go as the message's content parts, checked here as in a local studio (the server
        // checks them again: its own limits are the guard, these spare it a refused upload).
        const content =
          attachments === undefined ? input : attachedMessage(input.trim(), attachments).content;
        const started = await this.client.startRun(
          agent,
          { input: content, ...(body.sessionId !== undefined && { sessionId: body.sessionId }) },
          signal,
        );
        return this.stream(agent, started.runId, started.sessionId, 0, res);
      }
      case 'POST /agents/:/runs/:/approvals': {
        const agent = decodeURIComponent(parts[1]!);
        const runId = decodeURIComponent(parts[3]!);
        const body = await readJsonObject(req);
        onlyFields(body, ['approvals']);
        const resumed = await this.client.approve(runId, parseApprovals(body.approvals), signal);
        return this.stream(
          agent,
          resumed.runId,
          resumed.sessionId,
          this.lastSeen.get(resumed.runId) ?? 0,
          res,
        );
      }
      case 'POST /agents/:/runs/:/inputs': {
        const runId = decodeURIComponent(parts[3]!);
        const { callId, action, content } = parseAnswer(await readJsonObject(req));
        const questionId = await this.questionIdOf(runId, callId, signal);
        // The server checks a form answer against the question's schema (400, shown on the card).
        await this.client.answer(runId, [{ questionId, action, ...(content && { content }) }], signal);
        this.questionIds.delete(`${runId}\0${callId}`);
        // The run's stream to the page is still open: what follows comes through it.
        return sendJson(res, 200, { answered: true });
      }
      default:
        throw new StudioHttpError(
          404,
          'not_served',
          `the studio is pointed at raf serve at ${this.client.origin}: it serves conversations only (the Tools and Agent pages read local agent files; run raf studio on them)`,
        );
    }
  }

  private forget(runId: string): void {
    this.lastSeen.delete(runId);
    for (const key of this.questionIds.keys()) if (key.startsWith(`${runId}\0`)) this.questionIds.delete(key);
  }

  /** The id the server gave the call's question: from its event, else from the run's pending ones. */
  private async questionIdOf(runId: string, callId: string, signal: AbortSignal): Promise<string> {
    const seen = this.questionIds.get(`${runId}\0${callId}`);
    if (seen) return seen;
    const pending = await this.client.pendingQuestions(runId, signal);
    const question = pending.filter((q) => q.callId === callId).at(-1);
    if (!question)
      throw new StudioHttpError(404, 'no_such_question', `run ${runId} has no question from call ${callId}`);
    return question.questionId;
  }

  /** Stops reading every run's events (the studio is closing); the runs stay on the server. */
  abortAll(): void {
    for (const controller of this.active) controller.abort(new Error('the studio is closing'));
  }

  /**
   * The run's events to the page, in the local studio's shape: a `run` event, then the
   * `raf run --json` lines. A page that closes the stream early (Stop) cancels the run there.
   */
  private async stream(agent: string, runId: string, sessionId: string, after: number, res: ServerResponse) {
    const controller = new AbortController();
    this.active.add(controller);
    let ended = false;
    res.on('close', () => {
      if (ended) return;
      controller.abort(new Error('the page closed the stream'));
      // Best effort, on its own deadline: the stream's signal is the one that just fired.
      void this.client.cancel(runId, AbortSignal.timeout(10_000)).catch(() => undefined);
    });
    const events = openEventStream(res);
    events.send({ runId, sessionId, agent }, 'run');
    try {
      for await (const event of this.client.events(runId, after, controller.signal)) {
        this.lastSeen.set(runId, event.seq);
        if (event.data.type === 'input-request' && typeof event.data.questionId === 'string')
          this.questionIds.set(`${runId}\0${String(event.data.callId)}`, event.data.questionId);
        events.send(event.data);
        if (event.data.type === 'finish' && event.data.reason !== 'awaitingApproval') this.forget(runId);
      }
    } catch (error) {
      if (!controller.signal.aborted)
        events.send({
          type: 'error',
          // The server's refusal or a hostile answer keeps its code (server_answer_invalid, …).
          code: error instanceof StudioHttpError ? error.code : 'studio_error',
          message: (error as Error).message,
        });
    } finally {
      ended = true;
      // Stopped by the page: the run is cancelled there, its questions with it.
      if (controller.signal.aborted) this.forget(runId);
      this.active.delete(controller);
      events.end();
    }
  }
}
