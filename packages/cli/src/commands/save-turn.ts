import { type FinishUpdate, getErrorMessage, RafError } from '@raf/core';
import type { CliArgs } from '../args.js';
import type { OpenedSession } from '../opened-session.js';
import type { NdjsonRenderer } from '../render/ndjson.js';

// Shared by `raf run` of agents and of workflows (`run-workflow.ts`): its own module, so the two
// commands do not import each other.

/**
 * Saves the turn (compare-and-set); a failure is said as an `error` update and the stream still
 * ends with its `finish` (`--json`), then the command fails with the save's error.
 */
export async function saveOrFinish(
  opened: OpenedSession,
  args: CliArgs,
  json: NdjsonRenderer,
  finish: FinishUpdate,
): Promise<void> {
  try {
    await opened.save();
  } catch (error) {
    if (args.json) {
      const code = RafError.isInstance(error) ? error.code : 'RAF_SESSION';
      json.render({ type: 'error', code, message: getErrorMessage(error) }, opened.session.id);
      json.render({ type: 'finish', reason: finish.reason }, opened.session.id);
    }
    throw error;
  }
}
