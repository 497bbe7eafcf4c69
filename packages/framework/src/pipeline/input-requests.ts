import {
  type AgentResponseUpdate,
  getErrorMessage,
  type InputAnswer,
  type InputRequest,
  type InputRequestUpdate,
  type JSONValue,
} from '@raf/core';
import * as z from 'zod';
import { jsonSchemaProblems } from '../tools/argument-validator.js';

/**
 * Answers the questions tools put to the user while they run (`ctx.requestInput`, an MCP
 * elicitation; SPEC §14.4): `raf chat` asks on the terminal, `raf run --answer` takes the next
 * answer given, a server forwards it to its client. The call waits for it (its timeout runs).
 */
export type InputRequestHandler = (
  request: InputRequestUpdate,
  options: { signal: AbortSignal },
) => Promise<InputAnswer>;

/** Where the questions and their warnings are streamed (the loop's progress channel). */
export interface InputSink {
  push(update: AgentResponseUpdate): void;
}

const contentSchema = z.record(z.string(), z.json());

const answerSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('accept'), content: contentSchema.optional() }),
  z.object({ action: z.literal('decline') }),
  z.object({ action: z.literal('cancel') }),
]);

/** The parts of a form's flat JSON Schema that plain-text answers read (the rest is checked by the validator). */
const formSchema = z.object({
  properties: z.record(z.string(), z.object({ type: z.unknown().optional() }).loose()).optional(),
  required: z.array(z.string()).optional(),
});

const brief = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

/**
 * One question of a running call: streamed as an `input-request` update, answered by the run's
 * handler, the answer checked against the requested schema. Nobody to answer, a handler that
 * throws (its message says why), or an answer that does not fit: declined, with a warning (the
 * asker is never given unchecked values).
 */
export async function askForInput(
  call: { callId: string; signal: AbortSignal },
  request: InputRequest,
  sink: InputSink | undefined,
  handler: InputRequestHandler | undefined,
): Promise<InputAnswer> {
  const update: InputRequestUpdate = { type: 'input-request', callId: call.callId, ...request };
  sink?.push(update);
  const decline = (why: string): InputAnswer => {
    sink?.push({ type: 'warning', message: `${request.source} asked "${brief(request.message)}": ${why}` });
    return { action: 'decline' };
  };
  if (!handler)
    return decline(
      'declined, nobody can answer in this run (raf run --answer VALUE answers in order; raf chat asks)',
    );
  let reply: unknown;
  try {
    reply = await handler(update, { signal: call.signal });
  } catch (error) {
    // A handler that cannot answer says why by throwing (`--answer` left none, did not fit, …).
    if (call.signal.aborted) return { action: 'cancel' };
    return decline(getErrorMessage(error));
  }
  const given = answerSchema.safeParse(reply);
  if (!given.success) return decline('declined, the answer was not accept, decline or cancel');
  const answer: InputAnswer = given.data;
  if (answer.action !== 'accept' || request.mode !== 'form') return answer;
  const problem = checkInputAnswer(request, answer.content ?? {});
  return problem ? decline(`declined, the answer does not fit the question: ${problem}`) : answer;
}

/** What is wrong with `content` as the answer to a form question, or `undefined` when it fits. */
export function checkInputAnswer(
  request: Pick<InputRequest, 'schema'>,
  content: Record<string, JSONValue>,
): string | undefined {
  if (!request.schema) return undefined;
  const problems = jsonSchemaProblems(request.schema, content);
  return problems.length > 0 ? problems.join('; ') : undefined;
}

const YES = new Set(['y', 'yes', 'accept', 'ok', 'true', 'open']);

/**
 * A typed answer (`--answer VALUE`, a line at the prompt, a form field) as an `InputAnswer`: for
 * a URL question yes/accept; for a form a JSON object, or plain text for its one (required) field;
 * an empty answer declines. A wrong answer is `{ error }` (say it, ask again or decline).
 */
export function parseInputAnswer(
  request: Pick<InputRequest, 'mode' | 'schema'>,
  text: string,
): { answer: InputAnswer } | { error: string } {
  const typed = text.trim();
  if (typed === '') return { answer: { action: 'decline' } };
  if (request.mode === 'url')
    return { answer: YES.has(typed.toLowerCase()) ? { action: 'accept' } : { action: 'decline' } };
  const form = formSchema.safeParse(request.schema ?? {});
  const properties = Object.entries(form.success ? (form.data.properties ?? {}) : {});
  let content: Record<string, JSONValue> | undefined;
  if (typed.startsWith('{')) {
    try {
      const value = contentSchema.safeParse(JSON.parse(typed));
      if (value.success) content = value.data;
    } catch {
      return { error: 'not valid JSON (give a JSON object with the fields asked for)' };
    }
  } else {
    // Plain text fills the form's one field, or its one required field.
    const required = form.success ? (form.data.required ?? []) : [];
    const only =
      properties.length === 1
        ? properties[0]
        : properties.find(([name]) => required.length === 1 && name === required[0]);
    if (only) content = { [only[0]]: fieldValue(only[1].type, typed) };
  }
  if (!content)
    return {
      error: `give a JSON object with the fields ${properties.map(([name]) => name).join(', ') || 'asked for'}`,
    };
  const problem = checkInputAnswer(request, content);
  return problem ? { error: problem } : { answer: { action: 'accept', content } };
}

/** Plain text for a one-field form, typed as the field says (`42` for a number, `yes` for a boolean). */
function fieldValue(type: unknown, text: string): JSONValue {
  if ((type === 'number' || type === 'integer') && Number.isFinite(Number(text))) return Number(text);
  if (type === 'boolean')
    return YES.has(text.toLowerCase()) ? true : text.toLowerCase() === 'no' ? false : text;
  return text;
}
