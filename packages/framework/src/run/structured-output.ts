import {
  type AgentResponse,
  type AgentResponseUpdate,
  addUsage,
  collectAgentResponse,
  type FinishUpdate,
  type JSONSchema,
  type JSONValue,
  OutputError,
  type OutputSchema,
  StreamFailedError,
  userMessage,
  zodToJsonSchema,
} from '@raf/core';
import type * as z from 'zod';
import type { AgentInput, AgentRunOptions } from '../agent/agent-run-options.js';
import { AgentSession } from '../sessions/agent-session.js';
import { jsonSchemaProblems } from '../tools/argument-validator.js';

/** A structured answer to ask for: a zod schema in code, a JSON Schema (YAML `outputSchema`). */
export type OutputSpec<T = unknown> = z.ZodType<T> | JSONSchema;

/** The schema as the model is asked for it, and the check of what it answered. */
export interface ResolvedOutput {
  schema: OutputSchema;
  /** The answer's problems (empty: it matches) and the value to hand back. */
  check(value: unknown): { problems: string[]; value?: JSONValue };
}

const isZod = (spec: unknown): spec is z.ZodType =>
  spec !== null && typeof spec === 'object' && typeof (spec as z.ZodType).safeParse === 'function';

export function resolveOutput(spec: OutputSpec): ResolvedOutput {
  if (isZod(spec)) {
    const schema = zodToJsonSchema(spec);
    return {
      schema: { schema },
      check(value) {
        const parsed = spec.safeParse(value);
        if (parsed.success) return { problems: [], value: parsed.data as JSONValue };
        return {
          problems: parsed.error.issues.map(
            (i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`,
          ),
        };
      },
    };
  }
  const { title, description } = spec as { title?: unknown; description?: unknown };
  return {
    schema: {
      schema: spec,
      ...(typeof title === 'string' && { name: title }),
      ...(typeof description === 'string' && { description }),
    },
    check: (value) => {
      const problems = jsonSchemaProblems(spec, value);
      return problems.length > 0 ? { problems } : { problems, value: value as JSONValue };
    },
  };
}

/** The answer's JSON: the text itself, or the one fenced block a model wrapped it in. */
function parseAnswer(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const trimmed = text.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(trimmed);
  try {
    return { ok: true, value: JSON.parse(fenced ? fenced[1]! : trimmed) };
  } catch (error) {
    const shown = trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed;
    return {
      ok: false,
      problem: `the answer is not JSON (${(error as Error).message}): ${shown || '(empty)'}`,
    };
  }
}

function judge(resolved: ResolvedOutput, text: string): { problems: string[]; value?: JSONValue } {
  const parsed = parseAnswer(text);
  return parsed.ok ? resolved.check(parsed.value) : { problems: [parsed.problem] };
}

function repairPrompt(resolved: ResolvedOutput, problems: readonly string[]): string {
  return `Your last answer is not the structured output asked for: ${problems.join('; ')}. Answer again with only a JSON value matching this JSON Schema, no other text: ${JSON.stringify(resolved.schema.schema)}`;
}

/** What went wrong when the run could not give a matching answer (for `generate`'s typed error). */
export interface OutputFailure {
  text: string;
  problems: string[];
}

type RunOnce = (
  input: AgentInput,
  options: AgentRunOptions<unknown>,
) => AsyncIterable<readonly AgentResponseUpdate[]>;

/**
 * A run with an output schema (SPEC §15): the schema goes to every model call as
 * `modelOptions.output` (each provider's native mode), the final answer is parsed and validated;
 * an invalid one gets one repair turn on the same session (the model reads what was wrong), then
 * an `error` update `RAF_OUTPUT`. A valid answer's value rides on `finish.output`. Runs that end
 * otherwise (a pause for approval, a failure, the round limit) finish as they came, without output.
 */
export async function* withStructuredOutput(
  spec: OutputSpec,
  runOnce: RunOnce,
  input: AgentInput,
  options: AgentRunOptions<unknown>,
  failure?: { last?: OutputFailure },
): AsyncGenerator<readonly AgentResponseUpdate[], void, undefined> {
  const resolved = resolveOutput(spec);
  // Both turns on one session, so the repair turn sees the answer it repairs.
  const session = options.session ?? new AgentSession();
  const asked: AgentRunOptions<unknown> = {
    ...options,
    session,
    modelOptions: { ...options.modelOptions, output: resolved.schema },
  };
  const first = yield* forwardTurn(runOnce(input, asked));
  if (!first.answered) return yield [first.finish];
  let verdict = judge(resolved, first.text);
  let finish = first.finish;
  if (verdict.problems.length > 0) {
    yield [
      {
        type: 'warning',
        code: 'RAF_OUTPUT_REPAIR',
        message: `the answer does not match the output schema (${verdict.problems.join('; ')}); asking the model once more`,
      },
    ];
    const { approvals: _once, ...again } = asked;
    const second = yield* forwardTurn(runOnce(userMessage(repairPrompt(resolved, verdict.problems)), again));
    const usage = second.finish.usage
      ? addUsage(first.finish.usage, second.finish.usage)
      : first.finish.usage;
    finish = { ...second.finish, ...(usage && { usage }) };
    if (!second.answered) return yield [finish];
    verdict = judge(resolved, second.text);
    if (verdict.problems.length > 0) {
      if (failure) failure.last = { text: second.text, problems: verdict.problems };
      return yield [
        {
          type: 'error',
          code: 'RAF_OUTPUT',
          message: `the answer does not match the output schema after one repair: ${verdict.problems.join('; ')}`,
        },
        { ...finish, reason: 'other' },
      ];
    }
  }
  yield [{ ...finish, output: verdict.value as JSONValue }];
}

/**
 * Passes a turn's updates on, holding back its `finish`, and keeps the text of its last model
 * answer (text after the last tool activity: the answer the schema is for).
 */
async function* forwardTurn(
  turn: AsyncIterable<readonly AgentResponseUpdate[]>,
): AsyncGenerator<
  readonly AgentResponseUpdate[],
  { finish: FinishUpdate; text: string; answered: boolean },
  undefined
> {
  let finish: FinishUpdate = { type: 'finish', reason: 'other' };
  let text = '';
  let failed = false;
  for await (const batch of turn) {
    let forward = batch;
    for (const update of batch) {
      if (update.type === 'text-delta') text += update.delta;
      else if (update.type === 'tool-call-start' || update.type === 'tool-called') text = '';
      else if (update.type === 'error') failed = true;
      else if (update.type === 'finish') {
        finish = update;
        forward = batch.filter((u) => u !== update);
      }
    }
    if (forward.length > 0) yield forward;
  }
  return { finish, text, answered: !failed && finish.reason === 'stop' };
}

/**
 * `generate` with an output schema: the collected response, or an `OutputError` (text and
 * problems of the last answer) when no matching answer came.
 */
export async function collectStructured(
  run: (failure: { last?: OutputFailure }) => AsyncIterable<AgentResponseUpdate>,
): Promise<AgentResponse> {
  const failure: { last?: OutputFailure } = {};
  try {
    return await collectAgentResponse(run(failure));
  } catch (error) {
    if (StreamFailedError.isInstance(error) && error.streamCode === 'RAF_OUTPUT' && failure.last)
      throw new OutputError(error.message, failure.last.text, failure.last.problems, { cause: error });
    throw error;
  }
}
