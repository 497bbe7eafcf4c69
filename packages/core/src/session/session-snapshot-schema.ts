import * as z from 'zod';
import { SessionError } from '../errors/error-classes.js';
import type { JSONValue } from '../json/json.js';
import { onFirstUse } from '../lazy/on-first-use.js';
import type { JournalEntry } from './journal.js';
import type { SessionSnapshot } from './session.js';

/**
 * The pieces a session, a `RunState` and the sub-agent worker protocol share (JSON values, tool
 * results, approval requests, messages, the paused batch). Built on first use (a session read): importing the framework builds none.
 */
export const sessionSchemaParts = onFirstUse(() => {
  const json: z.ZodType<JSONValue> = z.lazy(() =>
    z.union([z.null(), z.string(), z.number(), z.boolean(), z.array(json), z.record(z.string(), json)]),
  );
  const approvalRequest = z.object({
    type: z.literal('tool-approval-request'),
    callId: z.string(),
    name: z.string(),
    arguments: json,
    description: z.string(),
    resolvedTarget: z.string().optional(),
    agentPath: z.array(z.string()).optional(),
  });
  const toolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string() });

  const contentPart = z.union([
    z.object({ type: z.literal('text'), text: z.string() }).strict(),
    z.object({ type: z.literal('image'), url: z.string(), mediaType: z.string().optional() }).strict(),
    z.object({ type: z.literal('image'), data: z.string(), mediaType: z.string() }).strict(),
    z.object({ type: z.literal('file'), data: z.string(), mediaType: z.string(), name: z.string() }).strict(),
  ]);
  // `parts`: the media a result shows the model (an image `read_file` opened). A paused batch keeps
  // the results of the calls that ran before it paused: without them, a resumed run's model would
  // get the JSON and not the image.
  const toolResult = z.object({
    ok: z.boolean(),
    data: json.optional(),
    error: z.string().optional(),
    parts: z.array(contentPart).optional(),
  });
  const message = z.object({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(contentPart)]),
    name: z.string().optional(),
    toolCalls: z.array(toolCall).optional(),
    toolCallId: z.string().optional(),
    reasoning: z.string().optional(),
    source: z.enum(['external', 'chatHistory', 'contextProvider', 'toolResult']).optional(),
  });
  // The paused batch: the same in a session and in a `RunState` (one schema for both).
  const pendingApproval = z.object({
    toolCalls: z.array(toolCall),
    gatedCallIds: z.array(z.string()),
    resolvedTargets: z.record(z.string(), z.string()).optional(),
    round: z.number().int().nonnegative(),
    results: z.record(z.string(), toolResult).optional(),
    suspended: z.record(z.string(), z.object({ requests: z.array(approvalRequest), state: json })).optional(),
  });
  const count = z.number().int().nonnegative();
  const usage = z.object({
    promptTokens: count,
    completionTokens: count,
    totalTokens: count,
    promptCacheHitTokens: count.optional(),
    promptCacheMissTokens: count.optional(),
    reasoningTokens: count.optional(),
  });
  return { json, toolResult, approvalRequest, toolCall, message, pendingApproval, usage };
});

const sessionSchemas = onFirstUse(() => {
  const { json, message, pendingApproval } = sessionSchemaParts();

  // A date the session can format again on save: a string Date.parse cannot read would make
  // toJSON() throw long after the file was loaded.
  const timestamp = z
    .string()
    .refine((text) => !Number.isNaN(Date.parse(text)), 'expected a date (ISO 8601)');

  const snapshot = z.object({
    version: z.literal(1),
    id: z.string().min(1),
    messages: z.array(message),
    state: z.record(z.string(), json),
    metadata: z.record(z.string(), json),
    pendingApproval: pendingApproval.optional(),
    inFlight: z.array(z.string()).optional(),
    revision: z.number().int().nonnegative().optional(),
    createdAt: timestamp,
    updatedAt: timestamp,
  });

  const journalEntry = z.discriminatedUnion('type', [
    z.object({ type: z.literal('messages'), messages: z.array(message) }),
    z.object({ type: z.literal('calls-started'), callIds: z.array(z.string()) }),
    z.object({ type: z.literal('state'), key: z.string(), value: json.nullable() }),
    z.object({ type: z.literal('pending'), pendingApproval: pendingApproval.nullable() }),
  ]);
  return { snapshot, journalEntry };
});

export const sessionSnapshotSchema = () => sessionSchemas().snapshot;

/** Checks one journal entry read back (a line of a file, a database row); `source` names it in errors. */
export function parseJournalEntry(input: unknown, source = 'journal entry'): JournalEntry {
  const parsed = sessionSchemas().journalEntry.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new SessionError(`${source} is not a valid journal entry: ${describeIssues(parsed.error)}`);
}

/** The first issues of a failed parse, each with its path: what an error message names. */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

export type SafeParseSessionResult =
  | { success: true; value: SessionSnapshot }
  | { success: false; error: SessionError };

/** Checks serialized session data (from a file, a database, the wire); `source` names it in errors. */
export function safeParseSessionSnapshot(input: unknown, source = 'session data'): SafeParseSessionResult {
  const parsed = sessionSnapshotSchema().safeParse(input);
  if (parsed.success) return { success: true, value: parsed.data };
  return {
    success: false,
    error: new SessionError(`${source} is not a valid session: ${describeIssues(parsed.error)}`),
  };
}

export function parseSessionSnapshot(input: unknown, source?: string): SessionSnapshot {
  const parsed = safeParseSessionSnapshot(input, source);
  if (!parsed.success) throw parsed.error;
  return parsed.value;
}

/**
 * A session's snapshot as the plain JSON it is (a workflow node keeps one in its state): checked
 * against the schema a reader applies, so what is kept is what reads back.
 */
export function sessionSnapshotJSON(snapshot: SessionSnapshot): JSONValue {
  return sessionSnapshotSchema().parse(snapshot);
}
