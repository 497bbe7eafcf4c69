import type { InputAnswer, InputRequestUpdate } from '@raf/core';
import { type InputRequestHandler, parseInputAnswer } from '@raf/framework';
import { escapeLine } from './render/escape.js';

/**
 * How the CLI answers the questions tools ask while they run (an MCP elicitation, SPEC §14.4):
 * the `--answer` values in order (the run's questions, workflow ones included, share the queue),
 * else a prompt on the terminal (`raf chat`, `raf run` on a terminal with `--approve ask`), else
 * declined with a warning. `--approve none` declines every question. A URL is shown, never opened.
 */
export interface InputAnswerOptions {
  /** `--answer` values not used yet; taken from the front. */
  answers: string[];
  /** A terminal prompt, when there is one. */
  ask?: (question: string) => Promise<string>;
  /** Where the question is shown before the prompt (stderr). */
  show: (text: string) => void;
  declineAll?: boolean;
}

const PROMPT_TRIES = 3;

/** `name* (string), age (integer 0–150)`: the fields of a form, for the prompt. */
function describeFields(request: InputRequestUpdate): string {
  const properties = (request.schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((request.schema?.required as string[] | undefined) ?? []);
  return Object.entries(properties)
    .map(([name, field]) => {
      const choices = Array.isArray(field.enum) ? ` one of ${field.enum.join('|')}` : '';
      return `${name}${required.has(name) ? '*' : ''} (${String(field.type ?? 'value')}${choices})`;
    })
    .join(', ');
}

/** The question as the terminal shows it (escaped: a server's text may carry control sequences). */
export function describeQuestion(request: InputRequestUpdate): string {
  const head = `${escapeLine(request.source)} asks: ${escapeLine(request.message)}`;
  if (request.mode === 'url')
    return `${head}\n  open this page yourself if you trust it: ${escapeLine(request.url ?? '')}\n`;
  return `${head}\n  fields: ${escapeLine(describeFields(request))}\n`;
}

export function inputAnswerHandler(options: InputAnswerOptions): InputRequestHandler {
  return async (request, { signal }): Promise<InputAnswer> => {
    if (options.declineAll) throw new Error('declined (--approve none)');
    const given = options.answers.shift();
    if (given !== undefined) {
      const parsed = parseInputAnswer(request, given);
      if ('error' in parsed)
        throw new Error(`declined, --answer ${JSON.stringify(given)} does not fit: ${parsed.error}`);
      return parsed.answer;
    }
    const { ask } = options;
    if (!ask)
      throw new Error('declined, no --answer was left for it (give one --answer per question, in order)');
    options.show(describeQuestion(request));
    for (let tries = 0; tries < PROMPT_TRIES && !signal.aborted; tries++) {
      const typed = await ask(
        request.mode === 'url'
          ? 'done / consent? [y/N] '
          : 'answer (JSON, or text for the one required field; empty declines): ',
      );
      const parsed = parseInputAnswer(request, typed);
      if ('answer' in parsed) return parsed.answer;
      options.show(`  ${escapeLine(parsed.error)}\n`);
    }
    return { action: 'decline' };
  };
}
