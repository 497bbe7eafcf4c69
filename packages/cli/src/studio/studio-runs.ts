import type { ServerResponse } from 'node:http';
import type { ApprovalResponse, ChatMessage, ToolApprovalRequestUpdate } from '@raf/core';
import { type AgentSession, type RafStore, runtimeDiagnostic } from '@raf/framework';
import { previewChange } from '../approval-prompt.js';
import { OpenedSession } from '../opened-session.js';
import { NdjsonRenderer } from '../render/ndjson.js';
import { pendingRequests, runTurn } from '../turn.js';
import { type EventStream, onlyFields, openEventStream, StudioHttpError } from './http-json.js';
import { chatAgentOf, type StudioAgent } from './studio-agents.js';
import { attachedMessage } from './studio-attachments.js';
import { StudioQuestions } from './studio-questions.js';

interface Run {
  agentId: string;
  session: AgentSession;
  opened: OpenedSession;
  busy: boolean;
  /** The questions its tools wait on while the turn streams. */
  questions: StudioQuestions;
}

/**
 * The conversations of a studio: each run is a session (its id is the session's), streamed as
 * server-sent events. Messages carry exactly the lines of `raf run --json`; named events add what
 * a page shows beside them: `run` (the ids and this run's `runtimeDiagnostic()`, read when the
 * turn starts) and `approval-preview` (the diff a gated write would make).
 */
export class StudioRuns {
  private readonly runs = new Map<string, Run>();
  private readonly active = new Set<AbortController>();

  private store: Promise<RafStore> | undefined;

  /** `openStore`: the store `raf studio` was given (`--store`, `--sessions-dir`, `RAF_STORE`), opened on first use. */
  constructor(private readonly openStore: () => Promise<RafStore>) {}

  /** Sessions in the studio's store; each save is compare-and-set on the revision it loaded. */
  private open(id: string | undefined): Promise<OpenedSession> {
    this.store ??= this.openStore();
    return this.store.then((store) => OpenedSession.openIn(store, id));
  }

  /** Closes the store (a SQLite file or a Postgres pool) once the turns have stopped. */
  async close(): Promise<void> {
    const store = this.store;
    this.store = undefined;
    await (await store?.catch(() => undefined))?.close();
  }

  /**
   * `POST /api/agents/:id/runs` `{ input, sessionId?, attachments? }`: a turn (a new conversation
   * or the next turn of one); `attachments` (`[{ name, data }]`) make the message image and file parts.
   */
  async start(agent: StudioAgent, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    onlyFields(body, ['input', 'sessionId', 'attachments']);
    const { input, sessionId, attachments } = body;
    if (typeof input !== 'string' || (input.trim() === '' && attachments === undefined))
      throw new StudioHttpError(400, 'invalid_field', 'input: expected the text of the message');
    const message = attachments === undefined ? input : attachedMessage(input.trim(), attachments);
    if (sessionId !== undefined && (typeof sessionId !== 'string' || !/^[\w.-]{1,128}$/.test(sessionId)))
      throw new StudioHttpError(400, 'invalid_field', 'sessionId: expected letters, digits, ".", "_" or "-"');
    let run = sessionId ? this.runs.get(sessionId) : undefined;
    if (run && run.agentId !== agent.id)
      throw new StudioHttpError(409, 'wrong_agent', `session ${sessionId} belongs to agent ${run.agentId}`);
    if (!run) {
      const opened = await this.open(sessionId);
      run = {
        agentId: agent.id,
        session: opened.session,
        opened,
        busy: false,
        questions: new StudioQuestions(),
      };
    }
    if (run.session.pendingApproval)
      throw new StudioHttpError(
        409,
        'awaiting_approval',
        `session ${run.session.id} is waiting for approvals`,
      );
    await this.turn(run, agent, message, undefined, res);
  }

  /** `POST /api/agents/:id/runs/:run/approvals` `{ approvals: [{ callId, approved, reason? }] }`: resumes the run. */
  async approve(
    agent: StudioAgent,
    runId: string,
    body: Record<string, unknown>,
    res: ServerResponse,
  ): Promise<void> {
    let run = this.runs.get(runId);
    if (!run && /^[\w.-]{1,128}$/.test(runId)) {
      // A run paused before the studio restarted: its session is on disk.
      const opened = await this.open(runId);
      if (opened.resumed)
        run = {
          agentId: agent.id,
          session: opened.session,
          opened,
          busy: false,
          questions: new StudioQuestions(),
        };
    }
    if (!run || run.agentId !== agent.id)
      throw new StudioHttpError(404, 'no_such_run', `agent ${agent.id} has no run ${runId}`);
    const batch = run.session.pendingApproval;
    if (!batch)
      throw new StudioHttpError(409, 'not_awaiting_approval', `run ${runId} is not waiting for approvals`);
    onlyFields(body, ['approvals']);
    const approvals = parseApprovals(body.approvals);
    const pending = new Set(pendingRequests(batch).map((r) => r.callId));
    const unknown = approvals.filter((a) => !pending.has(a.callId)).map((a) => a.callId);
    if (unknown.length > 0)
      throw new StudioHttpError(400, 'unknown_call', `no pending approval for call ${unknown.join(', ')}`);
    const missing = [...pending].filter((id) => !approvals.some((a) => a.callId === id));
    if (missing.length > 0)
      throw new StudioHttpError(400, 'missing_approval', `no decision for call ${missing.join(', ')}`);
    await this.turn(run, agent, undefined, approvals, res);
  }

  /**
   * `POST /api/agents/:id/runs/:run/inputs` `{ callId, action, content? }`: answers a question a
   * tool of the running turn asked (the turn's stream goes on).
   */
  answer(agent: StudioAgent, runId: string, body: Record<string, unknown>): void {
    const run = this.runs.get(runId);
    if (!run || run.agentId !== agent.id)
      throw new StudioHttpError(404, 'no_such_run', `agent ${agent.id} has no run ${runId}`);
    run.questions.answer(runId, body);
  }

  /** Stops every turn in flight (the studio is closing). */
  abortAll(): void {
    for (const controller of this.active) controller.abort(new Error('the studio is closing'));
  }

  private async turn(
    run: Run,
    agent: StudioAgent,
    input: string | ChatMessage | undefined,
    approvals: ApprovalResponse[] | undefined,
    res: ServerResponse,
  ): Promise<void> {
    if (run.busy) throw new StudioHttpError(409, 'run_busy', `run ${run.session.id} is already running`);
    run.busy = true;
    const controller = new AbortController();
    this.active.add(controller);
    // A closed page cancels its turn; the session keeps what was done.
    res.on('close', () => {
      if (!res.writableFinished) controller.abort(new Error('the page closed the stream'));
    });
    let events: EventStream | undefined;
    try {
      const chat = await chatAgentOf(agent, controller.signal);
      const runtime = await runtimeDiagnostic(chat, { signal: controller.signal });
      this.runs.set(run.session.id, run);
      events = openEventStream(res);
      const stream = events;
      stream.send({ runId: run.session.id, sessionId: run.session.id, agent: agent.id, runtime }, 'run');
      const json = new NdjsonRenderer((line) => stream.send(JSON.parse(line)));
      const previews: Promise<void>[] = [];
      const outcome = await runTurn(
        chat,
        input,
        {
          session: run.session,
          signal: controller.signal,
          onInputRequest: run.questions.handler,
          ...(approvals && { approvals }),
        },
        (update) => {
          // `finish` stays the last message: it waits for the diffs of the approvals it ends on.
          if (update.type !== 'finish') json.render(update, run.session.id);
          if (update.type === 'tool-approval-request') previews.push(this.preview(update, stream));
        },
      );
      await Promise.all(previews);
      json.render(outcome.finish, run.session.id);
      await run.opened.save();
    } catch (error) {
      if (!events) throw error;
      // The stream has begun: the failure is its last message, in the `raf run --json` shape.
      events.send({ type: 'error', code: 'studio_error', message: (error as Error).message });
    } finally {
      run.busy = false;
      this.active.delete(controller);
      events?.end();
    }
  }

  private async preview(request: ToolApprovalRequestUpdate, events: EventStream): Promise<void> {
    const diff = await previewChange(request).catch(() => undefined);
    if (diff) events.send({ callId: request.callId, diff }, 'approval-preview');
  }
}

export function parseApprovals(value: unknown): ApprovalResponse[] {
  if (!Array.isArray(value) || value.length === 0)
    throw new StudioHttpError(
      400,
      'invalid_field',
      'approvals: expected a list of { callId, approved, reason? }',
    );
  return value.map((item, i) => {
    const at = `approvals[${i}]`;
    if (typeof item !== 'object' || item === null)
      throw new StudioHttpError(400, 'invalid_field', `${at}: expected { callId, approved, reason? }`);
    const { callId, approved, reason } = item as Record<string, unknown>;
    if (typeof callId !== 'string')
      throw new StudioHttpError(400, 'invalid_field', `${at}.callId: expected a string`);
    if (typeof approved !== 'boolean')
      throw new StudioHttpError(400, 'invalid_field', `${at}.approved: expected true or false`);
    if (reason !== undefined && typeof reason !== 'string')
      throw new StudioHttpError(400, 'invalid_field', `${at}.reason: expected a string`);
    return approved
      ? { callId, approved }
      : { callId, approved, reason: (reason as string | undefined) ?? 'Denied in the studio' };
  });
}
