import type { Part, StreamResponse, TaskState } from '@a2a-js/sdk';

/** A task's state in the spec's words (`input-required`), from the SDK's enum. */
export type A2AState =
  | 'submitted'
  | 'working'
  | 'completed'
  | 'failed'
  | 'canceled'
  | 'input-required'
  | 'rejected'
  | 'auth-required'
  | 'unknown';

// The enum's numbers (TASK_STATE_SUBMITTED = 1, …), as `@a2a-js/sdk` 1.x defines them.
const STATES: readonly A2AState[] = [
  'unknown',
  'submitted',
  'working',
  'completed',
  'failed',
  'canceled',
  'input-required',
  'rejected',
  'auth-required',
];

export function stateName(state: TaskState | undefined): A2AState {
  return (state !== undefined && STATES[state]) || 'unknown';
}

/** What a reply has said so far. */
export interface A2AReply {
  /** The answer text streamed (artifacts, agent messages). */
  text: string;
  taskId: string | undefined;
  state: A2AState | undefined;
  /** The text of the latest status message (progress, or a final answer given only there). */
  statusText: string;
}

/** The text of the text parts, in order (files and data parts are not text). */
export function textOfParts(parts: readonly Part[] | undefined): string {
  let text = '';
  for (const part of parts ?? []) if (part.content?.$case === 'text') text += part.content.value;
  return text;
}

/**
 * Folds one stream event into the reply and returns the answer text it adds. Artifacts and agent
 * messages are the answer; a status message is remembered (progress), and is the answer only when
 * the task completes with nothing else said (`ending` in the client).
 */
export function replyOf(reply: A2AReply, event: StreamResponse): string[] {
  const payload = event.payload;
  if (!payload) return [];
  const add = (text: string): string[] => {
    if (text === '') return [];
    reply.text += text;
    return [text];
  };
  switch (payload.$case) {
    case 'message':
      return add(textOfParts(payload.value.parts));
    case 'artifactUpdate':
      reply.taskId ??= payload.value.taskId || undefined;
      return add(textOfParts(payload.value.artifact?.parts));
    case 'statusUpdate': {
      reply.taskId ??= payload.value.taskId || undefined;
      reply.state = stateName(payload.value.status?.state);
      const said = textOfParts(payload.value.status?.message?.parts);
      if (said !== '') reply.statusText = said;
      return [];
    }
    case 'task': {
      const task = payload.value;
      reply.taskId ??= task.id || undefined;
      reply.state = stateName(task.status?.state);
      const said = textOfParts(task.status?.message?.parts);
      if (said !== '') reply.statusText = said;
      // A task that arrives whole (a server without streaming) carries its artifacts.
      if (reply.text !== '') return [];
      return add(task.artifacts.map((a) => textOfParts(a.parts)).join(''));
    }
    default:
      return [];
  }
}
