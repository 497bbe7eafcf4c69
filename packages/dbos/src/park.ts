import type * as z from 'zod';
import type { Dbos } from './load-sdk.js';
import {
  approvalTopic,
  type PausedState,
  type RunListener,
  type RunState,
  STATUS_EVENT,
} from './run-spec.js';

/** How long one `recv` of a parked run waits before it waits again (DBOS needs a timeout). */
const PARKED_SECONDS = 24 * 3600;

/**
 * Parks the running workflow at `paused` until an answer arrives, from any process: the status
 * event says what it waits for (`raf runs show`), the listener of this process is told (`raf run
 * --durable` exits 3 there), then the workflow waits on the pause's topic with no process needing
 * to stay. `DurableControl.approve` claims the pause before it sends, so exactly one answer comes.
 * Every call here is a DBOS operation: a recovered run replays the same pause and its answer.
 * Both the agent loop (between turns) and a workflow (between its segments) park through it.
 */
export async function park<T>(
  dbos: Dbos,
  paused: PausedState,
  schema: z.ZodType<T>,
  listener: RunListener | undefined,
): Promise<T> {
  await dbos.setEvent(STATUS_EVENT, paused satisfies RunState);
  listener?.paused?.(paused);
  let answer: unknown = null;
  while (answer === null) answer = await dbos.recv(approvalTopic(paused.pause), PARKED_SECONDS);
  const parsed = schema.parse(answer);
  await dbos.setEvent(STATUS_EVENT, { state: 'running' } satisfies RunState);
  return parsed;
}
