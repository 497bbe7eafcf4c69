// The four-round tool run of the stores' kill -9 test (`@raf/postgres` test-support), for the
// durable kill -9 test: a package's tests cannot import another's test sources.
import type { MockTurn, RecordedRequest } from '@raf/client/testing';
import { createToolManifest, defineTool, type ITool, toolSuccess } from '@raf/core';
import { z } from 'zod';

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

/** `bump` appends `<session> <call id>` to `log` (the side effect counted); `look` appends `look:<id>` and is idempotent. */
export function fixtureTools(log: (line: string) => void, delayMs = 0): ITool[] {
  const pause = () => new Promise((resolve) => setTimeout(resolve, delayMs));
  return [
    defineTool({
      name: 'bump',
      description: 'Counts one more',
      parameters: z.object({ round: z.number() }),
      execute: async (_args, ctx) => {
        await pause();
        log(`${ctx.sessionId} ${ctx.callId}`);
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
        log(`${ctx.sessionId} look:${ctx.callId}`);
        return toolSuccess({ seen: ctx.callId });
      },
    }),
  ];
}
