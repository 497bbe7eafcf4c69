import type { AgentResponseUpdate } from '@raf/core';

/** Drains a stream into an array (tests compare whole arrays of updates). */
export async function drain(stream: AsyncIterable<AgentResponseUpdate>): Promise<AgentResponseUpdate[]> {
  const updates: AgentResponseUpdate[] = [];
  for await (const update of stream) updates.push(update);
  return updates;
}

/** Runs `fn` and returns what it threw (fails the test when nothing was thrown). */
export async function thrown(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection, but the call succeeded');
}
