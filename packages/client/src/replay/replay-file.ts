import { readFile } from 'node:fs/promises';
import { type AgentResponseUpdate, ValidationError } from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';

const UPDATE_TYPES = [
  'text-delta',
  'reasoning-delta',
  'tool-call-start',
  'tool-call-args',
  'tool-call-end',
  'tool-called',
  'tool-approval-request',
  'usage',
  'response-metadata',
  'warning',
  'error',
  'finish',
] as const;

// Built on first use (a replay file read): importing the client builds no schema.
const replayRecordSchema = onFirstUse(() => {
  const updateSchema = z.looseObject({ type: z.enum(UPDATE_TYPES) });

  const replayTurnSchema = z.object({
    request: z.object({
      messageCount: z.number().int().nonnegative(),
      lastMessage: z.object({ role: z.string(), content: z.string() }).optional(),
      tools: z.array(z.string()).default([]),
    }),
    updates: z
      .array(updateSchema)
      .refine((u) => u.at(-1)?.type === 'finish', 'the last update of a turn must be "finish"'),
  });

  return z.object({
    version: z.literal(1),
    provider: z.string().optional(),
    model: z.string(),
    turns: z.array(replayTurnSchema),
  });
});

export interface ReplayTurn {
  request: { messageCount: number; lastMessage?: { role: string; content: string }; tools: string[] };
  updates: AgentResponseUpdate[];
}

/** A recorded session: what each model call was asked and what it answered. */
export interface ReplayRecord {
  version: 1;
  provider?: string;
  model: string;
  turns: ReplayTurn[];
}

export type SafeParseReplayResult =
  | { success: true; value: ReplayRecord }
  | { success: false; error: ValidationError };

export function safeParseReplayRecord(input: unknown, source = 'replay record'): SafeParseReplayResult {
  // jitless: a replay file is parsed once per process; zod's compiled fast path costs more to
  // generate than it saves on a few records.
  const parsed = replayRecordSchema().safeParse(input, { jitless: true });
  if (parsed.success) return { success: true, value: parsed.data as ReplayRecord };
  const issues = parsed.error.issues.map((i) => ({
    path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    message: i.message,
  }));
  const detail = issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
  return {
    success: false,
    error: new ValidationError(`${source} is not a valid replay file: ${detail}`, issues),
  };
}

export function parseReplayRecord(input: unknown, source?: string): ReplayRecord {
  const parsed = safeParseReplayRecord(input, source);
  if (!parsed.success) throw parsed.error;
  return parsed.value;
}

/** Reads and checks a replay file; every error names the file. */
export async function loadReplayFile(
  file: string,
  options: { signal?: AbortSignal } = {},
): Promise<ReplayRecord> {
  let text: string;
  try {
    text = await readFile(file, { encoding: 'utf8', ...(options.signal && { signal: options.signal }) });
  } catch (error) {
    throw new ValidationError(`cannot read replay file ${file}: ${(error as Error).message}`, [], {
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`replay file ${file} is not valid JSON: ${(error as Error).message}`, [], {
      cause: error,
    });
  }
  return parseReplayRecord(json, `replay file ${file}`);
}
