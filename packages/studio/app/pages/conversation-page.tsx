import { useRef, useState } from 'preact/hooks';
import { sendJson, streamRun } from '../api.js';
import { AgentPicker, RuntimeTable } from '../components.js';
import { useStudio } from '../context.js';
import { Field } from '../field.js';
import { finishWords } from '../i18n.js';
import type { Diagnostic, RunUpdate } from '../types.js';
import { AttachmentPicker, useAttachments } from './attachments.js';
import { type Question, type QuestionAction, QuestionCard } from './question-card.js';

type Approval = Extract<RunUpdate, { type: 'tool-approval-request' }>;
type Item =
  | { kind: 'user'; text: string; files?: string[] }
  | { kind: 'assistant'; text: string }
  | {
      kind: 'tool';
      callId: string;
      name: string;
      args: unknown;
      result?: { ok: boolean; data?: unknown; error?: string };
    }
  | { kind: 'approval'; request: Approval; diff?: string; decided?: boolean; approved?: boolean }
  | { kind: 'question'; request: Question; answered?: QuestionAction }
  | { kind: 'note'; text: string; error?: boolean }
  /** How a turn ended: worded when shown, so it follows the language switch. */
  | { kind: 'finish'; reason: string };

/** The sub-agents a delegation call names (`delegate_task {agent}`, `delegate_parallel {tasks[].agent}`). */
function delegatedTo(args: unknown): string[] {
  const a = (args ?? {}) as { agent?: unknown; tasks?: { agent?: unknown }[] };
  if (typeof a.agent === 'string') return [a.agent];
  if (Array.isArray(a.tasks))
    return a.tasks.map((t) => t?.agent).filter((n): n is string => typeof n === 'string');
  return [];
}

/**
 * Conversation: streamed text, tool calls and results, approvals with the resolved target and a
 * diff, and for each delegation the sub-agents' routes and blocked reasons of this run (the
 * `runtimeDiagnostic()` the server read when the turn started).
 */
export function ConversationPage() {
  const studio = useStudio();
  const [items, setItems] = useState<Item[]>([]);
  const [runtime, setRuntime] = useState<Diagnostic | null>(null);
  const [busy, setBusy] = useState(false);
  const [input, setInput] = useState('');
  /** The conversation (`id`, its session) and its last run (the one approvals and answers go to). */
  const session = useRef<{ agent: string; id: string; runId: string } | null>(null);
  const streaming = useRef<AbortController | null>(null);
  const attachments = useAttachments(studio.config.attachmentMaxBytes);

  const push = (item: Item) => setItems((list) => [...list, item]);
  const update = (fn: (list: Item[]) => Item[]) => setItems(fn);

  const run = async (path: string, body: unknown) => {
    setBusy(true);
    const controller = new AbortController();
    streaming.current = controller;
    try {
      await streamRun(
        path,
        body,
        {
          onStart(start) {
            session.current = { agent: start.agent, id: start.sessionId, runId: start.runId };
            setRuntime(start.runtime ?? null);
          },
          onPreview({ callId, diff }) {
            update((list) =>
              list.map((i) => (i.kind === 'approval' && i.request.callId === callId ? { ...i, diff } : i)),
            );
          },
          onUpdate(u) {
            switch (u.type) {
              case 'text-delta':
                update((list) => {
                  const last = list[list.length - 1];
                  return last?.kind === 'assistant'
                    ? [...list.slice(0, -1), { ...last, text: last.text + u.delta }]
                    : [...list, { kind: 'assistant', text: u.delta }];
                });
                break;
              case 'tool-call':
                push({ kind: 'tool', callId: u.callId, name: u.name, args: u.arguments });
                break;
              case 'tool-result':
                update((list) =>
                  list.map((i) =>
                    i.kind === 'tool' && i.callId === u.callId ? { ...i, result: u.result } : i,
                  ),
                );
                break;
              case 'tool-approval-request':
                push({ kind: 'approval', request: u });
                break;
              case 'input-request':
                push({ kind: 'question', request: u });
                break;
              case 'warning':
                push({ kind: 'note', text: u.message });
                break;
              case 'error':
                push({ kind: 'note', text: `${u.code}: ${u.message}`, error: true });
                break;
              case 'finish':
                push({ kind: 'finish', reason: u.reason });
                break;
            }
          },
        },
        controller.signal,
      );
    } catch (error) {
      // Stop: the server cancels the turn when the stream closes; say so in words, not as an error.
      if (controller.signal.aborted) push({ kind: 'finish', reason: 'cancelled' });
      else push({ kind: 'note', text: (error as Error).message, error: true });
    } finally {
      streaming.current = null;
      setBusy(false);
    }
  };

  const send = (event: Event) => {
    event.preventDefault();
    const text = input.trim();
    const files = attachments.files;
    if ((!text && files.length === 0) || !studio.agentId || busy) return;
    setInput('');
    attachments.clear();
    push({ kind: 'user', text, ...(files.length > 0 && { files: files.map((f) => f.name) }) });
    const same = session.current?.agent === studio.agentId ? session.current.id : undefined;
    void run(`/api/agents/${encodeURIComponent(studio.agentId)}/runs`, {
      input: text,
      ...(same && { sessionId: same }),
      ...(files.length > 0 && {
        // The server tells the type by the name, as `raf run --attach` does.
        attachments: files.map(({ name, data }) => ({ name, data })),
      }),
    });
  };

  /** A question's card answers through its own request; the open stream carries what follows. */
  const answer = async (request: Question, action: QuestionAction, content?: unknown) => {
    if (!session.current) return;
    const { agent, runId } = session.current;
    await sendJson(
      'POST',
      `/api/agents/${encodeURIComponent(agent)}/runs/${encodeURIComponent(runId)}/inputs`,
      {
        callId: request.callId,
        action,
        ...(content !== undefined && { content }),
      },
    );
    update((list) =>
      list.map((i) => (i.kind === 'question' && i.request === request ? { ...i, answered: action } : i)),
    );
  };

  const decide = (approved: boolean) => {
    const open = items.filter(
      (i): i is Extract<Item, { kind: 'approval' }> => i.kind === 'approval' && !i.decided,
    );
    if (!session.current || open.length === 0) return;
    update((list) =>
      list.map((i) => (i.kind === 'approval' && !i.decided ? { ...i, decided: true, approved } : i)),
    );
    const { agent, runId } = session.current;
    void run(`/api/agents/${encodeURIComponent(agent)}/runs/${encodeURIComponent(runId)}/approvals`, {
      approvals: open.map((i) => ({ callId: i.request.callId, approved })),
    });
  };
  const waiting = items.some((i) => i.kind === 'approval' && !i.decided);

  return (
    <>
      <AgentPicker />
      <ol class="chat" aria-live="polite" aria-label={studio.t('conversation')}>
        {items.map((item, n) => (
          <li key={n} class={`chat-${item.kind}`}>
            {item.kind === 'question' ? (
              <QuestionCard
                request={item.request}
                answered={item.answered}
                onAnswer={(action, content) => answer(item.request, action, content)}
              />
            ) : (
              <ChatItem item={item} runtime={runtime} />
            )}
          </li>
        ))}
      </ol>
      {waiting && (
        <fieldset class="actions">
          <legend class="sr-only">{studio.t('approvalNeeded')}</legend>
          <button type="button" class="primary" onClick={() => decide(true)} disabled={busy}>
            {studio.t('approve')}
          </button>
          <button type="button" onClick={() => decide(false)} disabled={busy}>
            {studio.t('deny')}
          </button>
        </fieldset>
      )}
      {studio.config.attachments && <AttachmentPicker attachments={attachments} disabled={waiting} />}
      <form class="composer" onSubmit={send} {...(studio.config.attachments && attachments.dropTarget)}>
        <label for="message">{studio.t('message')}</label>
        <textarea
          id="message"
          rows={2}
          value={input}
          onInput={(e) => setInput((e.target as HTMLTextAreaElement).value)}
          disabled={waiting}
        />
        {busy && !waiting ? (
          <button type="button" data-stop="" onClick={() => streaming.current?.abort()}>
            {studio.t('stop')}
          </button>
        ) : (
          <button type="submit" class="primary" disabled={busy || waiting || !studio.agentId}>
            {studio.t('send')}
          </button>
        )}
      </form>
      {runtime && (
        <details class="card" data-run-routes="">
          <summary>{studio.t('thisRun')}</summary>
          <RuntimeTable diagnostic={runtime} title={studio.t('agent')} compact />
          {runtime.subAgents.map((sub) => (
            <RuntimeTable key={sub.agent} diagnostic={sub} title={studio.t('subAgent')} compact />
          ))}
        </details>
      )}
    </>
  );
}

function ChatItem({ item, runtime }: { item: Item; runtime: Diagnostic | null }) {
  const studio = useStudio();
  switch (item.kind) {
    case 'user':
      return (
        <p>
          <strong>{studio.t('you')}:</strong> {item.text}
          {item.files?.map((name) => (
            <span key={name} class="badge" data-sent-attachment={name}>
              {name}
            </span>
          ))}
        </p>
      );
    case 'assistant':
      return <p class="assistant">{item.text}</p>;
    case 'note':
      return <p class={item.error ? 'error' : 'muted'}>{item.text}</p>;
    case 'question':
      return null;
    case 'finish':
      return <p class="muted">{finishWords(studio.lang, item.reason)}</p>;
    case 'tool': {
      const subs = delegatedTo(item.args)
        .map((name) => runtime?.subAgents.find((s) => s.agent === name))
        .filter((s): s is Diagnostic => s !== undefined);
      return (
        <div class="tool-call" data-call={item.callId}>
          <code>
            → {item.name} {JSON.stringify(item.args)}
          </code>
          {item.result && (
            <p class={item.result.ok ? 'ok result' : 'error'}>
              {item.result.ok ? '✓ ' : '✗ '}
              {item.result.ok ? summarize(item.result.data) : item.result.error}
            </p>
          )}
          {subs.length > 0 && (
            <div class="batch" data-batch={item.callId}>
              {subs.map((sub) => (
                <RuntimeTable key={sub.agent} diagnostic={sub} title={studio.t('subAgent')} compact />
              ))}
            </div>
          )}
        </div>
      );
    }
    case 'approval': {
      const r = item.request;
      // Decided: the card gives way to one line saying what was decided.
      if (item.decided)
        return (
          <p class="muted" data-decided={r.callId}>
            {item.approved ? '✓ ' : '✗ '}
            {studio.t(item.approved ? 'approved' : 'denied')}: {r.name}
            {r.resolvedTarget ? ` ${r.resolvedTarget}` : ''}
          </p>
        );
      return (
        <div class="approval card" data-approval={r.callId}>
          <h3>
            {studio.t('approvalNeeded')}: <Field name="approval.name" value={r.name} />
            {r.agentPath && r.agentPath.length > 0 && ` (${r.agentPath.join(' › ')})`}
          </h3>
          <p>
            {studio.t('target')}: <Field name="approval.resolvedTarget" value={r.resolvedTarget ?? null} />
          </p>
          <p>
            {studio.t('arguments')}: <code>{JSON.stringify(r.arguments)}</code>
          </p>
          {item.diff && (
            <pre class="diff" data-field="approval.diff">
              {item.diff.split('\n').map((line, n) => (
                <span key={n} class={diffClass(line)}>
                  {`${line}\n`}
                </span>
              ))}
            </pre>
          )}
        </div>
      );
    }
  }
}

const clip = (text: string, most: number) => (text.length > most ? `${text.slice(0, most)}…` : text);

/**
 * A tool result as a reader would write it: text as text, an object as `key: value` lines (a
 * list as its length and first items), never one long line of JSON.
 */
export function summarize(data: unknown): string {
  if (data === undefined || data === null) return '';
  if (typeof data !== 'object') return clip(String(data), 400);
  if (Array.isArray(data)) return `${data.length} item${data.length === 1 ? '' : 's'}`;
  const lines = Object.entries(data as Record<string, unknown>).map(([key, value]) => {
    if (typeof value === 'string') return `${key}: ${clip(value.includes('\n') ? `\n${value}` : value, 300)}`;
    if (Array.isArray(value))
      return `${key}: ${value.length} item${value.length === 1 ? '' : 's'}${
        value.length > 0
          ? ` (${clip(
              value
                .slice(0, 3)
                .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
                .join(', '),
              200,
            )})`
          : ''
      }`;
    if (value && typeof value === 'object') return `${key}: ${clip(JSON.stringify(value), 200)}`;
    return `${key}: ${String(value)}`;
  });
  return clip(lines.join('\n'), 1200);
}

/** Added and removed lines of a unified diff (not its `---`/`+++` file header). */
function diffClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---')) return 'muted';
  return line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : '';
}
