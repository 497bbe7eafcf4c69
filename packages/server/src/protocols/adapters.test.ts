import type { RunEvent } from '@raf/framework';
import { type UIMessageChunk as AiChunk, readUIMessageStream, type UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { agUiIntent, interruptId, toAgUiEvents } from './ag-ui.js';
import { chatIntent, toUIMessageChunks } from './ui-message-stream.js';

async function* of(events: RunEvent[]): AsyncGenerator<RunEvent> {
  for (const event of events) yield event;
}

/** The chunks read by the `ai` package's own UI message stream reader: the last message it builds. */
async function read(events: RunEvent[]): Promise<{ message: UIMessage | undefined; errors: unknown[] }> {
  const chunks = toUIMessageChunks(of(events), { runId: 'r1', sessionId: 's1' });
  const stream = new ReadableStream<AiChunk>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value as unknown as AiChunk);
    },
  });
  const errors: unknown[] = [];
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, onError: (e) => errors.push(e) })) message = m;
  return { message, errors };
}

describe('toUIMessageChunks, read by ai', () => {
  it('builds reasoning, text, a failed tool call and the metadata of the run', async () => {
    const { message, errors } = await read([
      { type: 'reasoning-delta', delta: 'thinking' },
      { type: 'text-delta', delta: 'Let me look.' },
      { type: 'tool-call', callId: 'c1', name: 'read_file', arguments: { path: 'x' } },
      { type: 'tool-result', callId: 'c1', name: 'read_file', result: { ok: false, error: 'no such file' } },
      { type: 'text-delta', delta: 'It is missing.' },
      { type: 'finish', reason: 'stop', sessionId: 's1' },
    ]);
    expect(errors).toEqual([]);
    expect(message?.metadata).toEqual({ runId: 'r1', sessionId: 's1', reason: 'stop' });
    const parts = message?.parts.filter((p) => p.type !== 'step-start');
    expect(parts).toMatchObject([
      { type: 'reasoning', text: 'thinking' },
      { type: 'text', text: 'Let me look.' },
      { type: 'dynamic-tool', toolName: 'read_file', state: 'output-error', errorText: 'no such file' },
      { type: 'text', text: 'It is missing.' },
    ]);
    expect(message?.parts.filter((p) => p.type === 'step-start')).toHaveLength(2);
  });

  it("passes a run's error to the reader as an error chunk", async () => {
    const chunks: { type: string }[] = [];
    for await (const c of toUIMessageChunks(
      of([
        { type: 'text-delta', delta: 'partial' },
        { type: 'error', code: 'model', message: 'the model went away' },
        { type: 'finish', reason: 'other', sessionId: 's1' },
      ]),
      { runId: 'r1', sessionId: 's1' },
    ))
      chunks.push(c);
    expect(chunks.map((c) => c.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'error',
      'finish-step',
      'finish',
    ]);
    expect(chunks.at(-1)).toMatchObject({ finishReason: 'other' });
  });

  it('reads an approval answer back from the messages useChat sends', () => {
    expect(
      chatIntent({
        id: 'chat',
        messages: [
          { id: 'u', role: 'user', parts: [{ type: 'text', text: 'go' }] },
          {
            id: 'a',
            role: 'assistant',
            metadata: { runId: 'r1', sessionId: 'chat' },
            parts: [
              {
                type: 'dynamic-tool',
                toolCallId: 'c1',
                state: 'approval-responded',
                approval: { id: 'c1', approved: false, reason: 'not now' },
              },
            ],
          },
        ],
      }),
    ).toEqual({
      kind: 'approvals',
      runId: 'r1',
      approvals: [{ callId: 'c1', approved: false, reason: 'not now' }],
      messageId: 'a',
    });
  });
});

describe('toAgUiEvents', () => {
  const ids = { threadId: 't', runId: 'client-run', servedRunId: 'r1' };
  const types = async (events: RunEvent[]) => {
    const out: { type: string; outcome?: unknown; message?: string }[] = [];
    for await (const e of toAgUiEvents(of(events), ids)) out.push(e as never);
    return out;
  };

  it('ends a failed run with RUN_ERROR, never RUN_FINISHED', async () => {
    const events = await types([
      { type: 'text-delta', delta: 'a' },
      { type: 'error', code: 'model', message: 'boom' },
      { type: 'finish', reason: 'other', sessionId: 's' },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_ERROR',
    ]);
    expect(events.at(-1)).toMatchObject({ message: 'boom' });
  });

  it('ends a cancelled run with outcome cancelled', async () => {
    const events = await types([{ type: 'finish', reason: 'cancelled', sessionId: 's' }]);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });
  });

  it("reads resume entries as the run's approvals (cancelled = denied) and refuses mixed runs", () => {
    const input = { threadId: 't', runId: 'x', messages: [], tools: [], context: [] };
    expect(
      agUiIntent({
        ...input,
        resume: [
          { interruptId: interruptId('r1', 'c1'), status: 'resolved', payload: { approved: true } },
          { interruptId: interruptId('r1', 'call/0'), status: 'cancelled' },
        ],
      }),
    ).toEqual({
      kind: 'resume',
      servedRunId: 'r1',
      approvals: [
        { callId: 'c1', approved: true },
        { callId: 'call/0', approved: false },
      ],
    });
    expect(
      agUiIntent({
        ...input,
        resume: [
          { interruptId: 'r1/c1', status: 'resolved', payload: { approved: true } },
          { interruptId: 'r2/c1', status: 'resolved', payload: { approved: true } },
        ],
      }).kind,
    ).toBe('invalid');
  });
});
