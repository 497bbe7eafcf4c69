import type { InputAnswer, InputRequestUpdate } from '@raf/core';
import { checkInputAnswer, type InputRequestHandler } from '@raf/framework';
import * as z from 'zod';
import { StudioHttpError } from './http-json.js';

/** `POST /api/agents/:id/runs/:run/inputs`: the page's answer to one `input-request` card. */
const answerBody = z.strictObject({
  callId: z.string().min(1).max(256),
  action: z.enum(['accept', 'decline', 'cancel']),
  content: z.record(z.string(), z.json()).optional(),
});

export type StudioAnswer = z.infer<typeof answerBody>;

/** The page's answer as its card sends it; a body that does not fit is a 400 the card shows. */
export function parseAnswer(body: Record<string, unknown>): StudioAnswer {
  const parsed = answerBody.safeParse(body);
  if (!parsed.success)
    throw new StudioHttpError(
      400,
      'invalid_field',
      parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
    );
  return parsed.data;
}

interface Waiting {
  request: InputRequestUpdate;
  answer(value: InputAnswer): void;
}

/**
 * The questions a run's tools are waiting on (an MCP elicitation, SPEC §14.4): the turn's stream
 * has carried the `input-request` update; the call waits here until the page answers through
 * its own request, while the stream stays open, so the run goes on where it was.
 */
export class StudioQuestions {
  private readonly waiting = new Map<string, Waiting>();

  /** The run's `onInputRequest`: resolves with the page's answer, or cancel when the turn stops. */
  readonly handler: InputRequestHandler = (request, { signal }) =>
    new Promise<InputAnswer>((resolve) => {
      const done = (value: InputAnswer) => {
        signal.removeEventListener('abort', stop);
        this.waiting.delete(request.callId);
        resolve(value);
      };
      const stop = () => done({ action: 'cancel' });
      if (signal.aborted) return stop();
      signal.addEventListener('abort', stop, { once: true });
      this.waiting.set(request.callId, { request, answer: done });
    });

  /** Answers a waiting question; a form answer that does not fit its schema is a 400 the card shows. */
  answer(runId: string, body: Record<string, unknown>): void {
    const { callId, action, content } = parseAnswer(body);
    const waiting = this.waiting.get(callId);
    if (!waiting)
      throw new StudioHttpError(404, 'no_such_question', `run ${runId} has no question from call ${callId}`);
    if (action !== 'accept') {
      waiting.answer({ action });
    } else if (waiting.request.mode === 'form') {
      const problem = checkInputAnswer(waiting.request, content ?? {});
      if (problem) throw new StudioHttpError(400, 'answer_does_not_fit', problem);
      waiting.answer({ action, content: content ?? {} });
    } else {
      // URL mode: consent only; there is nothing to fill in.
      if (content !== undefined)
        throw new StudioHttpError(400, 'invalid_field', 'content: a URL question takes no content');
      waiting.answer({ action });
    }
  }
}
