import type { ApprovalResponse } from '@raf/core';
import * as z from 'zod';
import type { Dbos } from './load-sdk.js';
import {
  answersPause,
  approvalTopic,
  type PausedState,
  type RunListener,
  type RunState,
  STATUS_EVENT,
  type WorkflowAnswer,
} from './run-spec.js';

/** How long one `recv` of a parked run waits before it waits again (DBOS needs a timeout). */
const PARKED_SECONDS = 24 * 3600;

/**
 * Parks the running workflow at `paused` until an answer arrives, from any process: the status
 * event says what it waits for (`raf runs show`), the listener of this process is told (`raf run
 * --durable` exits 3 there), then the workflow waits on the pause's topic with no process needing
 * to stay. `DurableControl.answer` claims the pause and sends in one transaction, so exactly one
 * answer comes; a message that does not parse is ignored with a warning (the run keeps waiting).
 * Every call here is a DBOS operation: a recovered run replays the same pause and its answer.
 * Both the agent loop (between turns) and a workflow (between its segments) park through it.
 */
export async function park<T extends ApprovalResponse[] | WorkflowAnswer>(
  dbos: Dbos,
  paused: PausedState,
  schema: z.ZodType<T>,
  listener: RunListener | undefined,
): Promise<T> {
  await dbos.setEvent(STATUS_EVENT, paused satisfies RunState);
  listener?.paused?.(paused);
  const topic = approvalTopic(paused.pause);
  for (;;) {
    const answer: unknown = await dbos.recv(topic, PARKED_SECONDS);
    if (answer === null) continue;
    const parsed = schema.safeParse(answer);
    if (parsed.success && answersPause(paused, parsed.data)) {
      await dbos.setEvent(STATUS_EVENT, { state: 'running' } satisfies RunState);
      return parsed.data;
    }
    // Anyone may send to the topic (a bad client, an older version): what is no answer must not
    // fail the run. It stays paused and answerable, and says what it ignored (`raf runs show`).
    const why = parsed.success
      ? 'it does not answer every call and question the pause waits for'
      : z.prettifyError(parsed.error).replace(/\s+/g, ' ');
    const warning = `ignored a message on ${topic} that is not an answer to this pause: ${why.length > 300 ? `${why.slice(0, 300)}…` : why}`;
    listener?.update({ type: 'warning', message: warning });
    await dbos.setEvent(STATUS_EVENT, { ...paused, warning } satisfies RunState);
  }
}
