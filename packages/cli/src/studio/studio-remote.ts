import type { IncomingMessage, ServerResponse } from 'node:http';
import { RUNTIME_LABELS } from '@raf/framework';
import { ATTACHMENT_MAX_BYTES } from '../attachments.js';
import { onlyFields, openEventStream, readJsonObject, StudioHttpError, sendJson } from './http-json.js';
import type { ServeClient } from './serve-client.js';
import { parseApprovals } from './studio-runs.js';

/**
 * The studio API when `raf studio --server URL` points it at a `raf serve` (issue 31): the page
 * asks its own studio as always; the conversations are runs on that server, through its /v1
 * API (agents, runs, events resumed after the last one seen, approvals, cancel). The Tools and
 * Agent pages read local agent files and governance, which the server does not publish: those
 * routes answer 404 with the reason, and `GET /api/config` tells the page so.
 */
export class RemoteStudio {
  /** The last event seen of each run that may go on (paused for approval): a resume reads after it. */
  private readonly lastSeen = new Map<string, number>();
  private readonly active = new Set<AbortController>();

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
          attachments: false,
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
        const body = await readJsonObject(req);
        onlyFields(body, ['input', 'sessionId', 'attachments']);
        if (body.attachments !== undefined)
          throw new StudioHttpError(
            400,
            'attachments_not_served',
            `raf serve's /v1 API takes the text of a message: files can be attached in a local raf studio`,
          );
        if (typeof body.input !== 'string' || body.input.trim() === '')
          throw new StudioHttpError(400, 'invalid_field', 'input: expected the text of the message');
        if (body.sessionId !== undefined && typeof body.sessionId !== 'string')
          throw new StudioHttpError(400, 'invalid_field', 'sessionId: expected a string');
        const started = await this.client.startRun(
          agent,
          { input: body.input, ...(body.sessionId !== undefined && { sessionId: body.sessionId }) },
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
      case 'POST /agents/:/runs/:/inputs':
        throw new StudioHttpError(
          404,
          'not_served',
          `raf serve at ${this.client.origin} takes no answers to questions through its API: the question was declined there`,
        );
      default:
        throw new StudioHttpError(
          404,
          'not_served',
          `the studio is pointed at raf serve at ${this.client.origin}: it serves conversations only (the Tools and Agent pages read local agent files; run raf studio on them)`,
        );
    }
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
        events.send(event.data);
        if (event.data.type === 'finish' && event.data.reason !== 'awaitingApproval')
          this.lastSeen.delete(runId);
      }
    } catch (error) {
      if (!controller.signal.aborted)
        events.send({ type: 'error', code: 'studio_error', message: (error as Error).message });
    } finally {
      ended = true;
      this.active.delete(controller);
      events.end();
    }
  }
}
