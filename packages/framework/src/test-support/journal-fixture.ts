import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { MockTurn, RecordedRequest } from '@raf/client/testing';
import {
  createToolManifest,
  defineTool,
  foldJournal,
  type ITool,
  type JournalEntry,
  type SessionJournal,
  type SessionSnapshot,
  toolSuccess,
} from '@raf/core';
import { z } from 'zod';
import { parseJournalEntry } from '../sessions/session-snapshot-schema.js';

export const ROUNDS = 4;

/**
 * A model that decides from the history it is sent: while fewer than `ROUNDS` tool rounds
 * followed the last user message it asks for `bump` (a side effect) and `look` (an idempotent
 * read) together, then answers. A resumed run therefore continues where the history stops.
 */
export function fourRoundModel(request: RecordedRequest): MockTurn {
  const messages = (request.body?.messages ?? []) as { role: string; tool_calls?: unknown[] }[];
  let rounds = 0;
  for (let i = messages.length - 1; i >= 0 && messages[i]!.role !== 'user'; i--) {
    if (messages[i]!.role === 'assistant' && messages[i]!.tool_calls?.length) rounds++;
  }
  if (rounds >= ROUNDS) return { text: 'done' };
  // Ids of later user turns carry the turn's number: every call id is unique in a session.
  const users = messages.filter((m) => m.role === 'user').length;
  const suffix = users > 1 ? `u${users}` : '';
  return {
    toolCalls: [
      { id: `b${rounds}${suffix}`, name: 'bump', arguments: { round: rounds } },
      { id: `l${rounds}${suffix}`, name: 'look', arguments: { round: rounds } },
    ],
  };
}

/** `bump` appends its call id to `log` (the side effect counted); `look` appends `look:<id>` and is idempotent. */
export function fixtureTools(log: (line: string) => void, delayMs = 0): ITool[] {
  const pause = () => new Promise((resolve) => setTimeout(resolve, delayMs));
  return [
    defineTool({
      name: 'bump',
      description: 'Counts one more',
      parameters: z.object({ round: z.number() }),
      execute: async (_args, ctx) => {
        await pause();
        log(ctx.callId);
        await pause();
        return toolSuccess({ bumped: ctx.callId });
      },
    }),
    defineTool({
      name: 'look',
      description: 'Reads the count',
      parameters: z.object({ round: z.number() }),
      manifest: createToolManifest({ idempotent: true }),
      execute: async (_args, ctx) => {
        await pause();
        log(`look:${ctx.callId}`);
        return toolSuccess({ seen: ctx.callId });
      },
    }),
  ];
}

export class MemoryJournal implements SessionJournal {
  readonly entries: JournalEntry[] = [];
  async append(entries: readonly JournalEntry[]): Promise<void> {
    this.entries.push(...structuredClone(entries));
  }
}

/**
 * The simplest file journal: one JSON line per entry, one write per append. Read back, each line
 * is parsed; a torn last line (a kill in the middle of a write) is dropped.
 */
export class JsonLinesJournal implements SessionJournal {
  constructor(readonly path: string) {}

  async append(entries: readonly JournalEntry[]): Promise<void> {
    appendFileSync(this.path, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(''));
  }

  read(): JournalEntry[] {
    if (!existsSync(this.path)) return [];
    const text = readFileSync(this.path, 'utf8');
    const lines = text.split('\n');
    // The text after the last newline is an append the kill cut short.
    lines.pop();
    return lines.map((line, i) => parseJournalEntry(JSON.parse(line), `${this.path}:${i + 1}`));
  }
}

export function emptySnapshot(id: string): SessionSnapshot {
  const now = new Date().toISOString();
  return { version: 1, id, messages: [], state: {}, metadata: {}, createdAt: now, updatedAt: now };
}

export function folded(id: string, entries: readonly JournalEntry[]): SessionSnapshot {
  return foldJournal(emptySnapshot(id), entries);
}
