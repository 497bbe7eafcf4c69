import { readFile } from 'node:fs/promises';
import type { ScriptTurn } from '@raf/client/testing';
import { DeclError, type Diagnostic, formatPath, parseYamlSource } from '@raf/decl';
import { z } from 'zod';
import { CliError } from '../io.js';

const toolCallSchema = z.strictObject({
  name: z.string().min(1),
  /** The call's arguments: a mapping (sent as JSON) or a JSON text. */
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
  id: z.string().min(1).optional(),
});

const turnSchema = z
  .strictObject({
    text: z.string().optional(),
    reasoning: z.string().optional(),
    toolCalls: z.array(toolCallSchema).min(1).optional(),
  })
  .refine((t) => t.text !== undefined || t.toolCalls !== undefined, {
    message: 'a turn needs text, toolCalls or both',
  });

/** A list of turns, or `{ turns: [...] }` (room for settings beside them later). */
const scriptSchema = z.union([
  z.array(turnSchema).min(1),
  z.strictObject({ turns: z.array(turnSchema).min(1) }),
]);

/**
 * A `raf mock` script: the model's turns of one conversation, in order. Problems are reported like
 * an agent file's, with file:line:col (and the line and a caret for a syntax error).
 */
export async function loadMockScript(path: string, shownAs: string): Promise<ScriptTurn[]> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read the mock script ${shownAs} (${error.code ?? error.message})`);
  });
  const { document, problems } = parseYamlSource(text, shownAs);
  if (!document) throw new DeclError(problems);
  const parsed = scriptSchema.safeParse(document.value);
  if (!parsed.success) {
    // The union's branches each complain; the one matching the file's shape says what is wrong.
    const list = Array.isArray(document.value);
    const issues = parsed.error.issues.flatMap((issue) =>
      issue.code === 'invalid_union' ? (issue.errors[list ? 0 : 1] ?? []) : [issue],
    );
    const diagnostics: Diagnostic[] = issues.map((issue) => {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      return {
        file: shownAs,
        ...document.locate(path),
        path: formatPath(path),
        message:
          issue.path.length === 0
            ? 'a mock script is a list of turns (or `turns:` with one), each with text and/or toolCalls'
            : issue.message,
        severity: 'error',
      };
    });
    throw new DeclError(diagnostics);
  }
  const turns = Array.isArray(parsed.data) ? parsed.data : parsed.data.turns;
  return turns.map((turn) => ({
    ...(turn.text !== undefined && { text: turn.text }),
    ...(turn.reasoning !== undefined && { reasoning: turn.reasoning }),
    ...(turn.toolCalls && {
      toolCalls: turn.toolCalls.map((call) => ({
        name: call.name,
        ...(call.id !== undefined && { id: call.id }),
        ...(call.arguments !== undefined && { arguments: call.arguments as never }),
      })),
    }),
  }));
}
