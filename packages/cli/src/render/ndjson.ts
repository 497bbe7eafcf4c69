import type { AgentResponseUpdate, FinishUpdate, JSONValue, Usage } from '@raf/core';
import { addUsage } from '@raf/core';
import { escapeJson } from './escape.js';

function parseArguments(text: string): JSONValue {
  try {
    return JSON.parse(text) as JSONValue;
  } catch {
    return text;
  }
}

/**
 * Maps agent updates to the stable NDJSON lines of SPEC §11.1 (`raf run --json`). Streaming noise
 * (argument deltas, metadata) is not printed; usage is summed into the final `finish`.
 */
export class NdjsonRenderer {
  private usage: Usage | undefined;
  /** The usage of the turns whose `finish` was passed over (see `continueAfter`). */
  private carried: Usage | undefined;

  constructor(private readonly write: (line: string) => void) {}

  render(update: AgentResponseUpdate, sessionId: string): void {
    const line = this.lineFor(update, sessionId);
    if (line) this.write(`${escapeJson(JSON.stringify(line))}\n`);
  }

  /**
   * The run paused on `finish` and the CLI goes on in the same process (it answered the approvals
   * itself): that `finish` is not printed — the output has one, always last (SPEC §11.1) — and its
   * usage counts in the last one.
   */
  continueAfter(finish: FinishUpdate): void {
    if (finish.usage) this.carried = this.carried ? addUsage(this.carried, finish.usage) : finish.usage;
  }

  private lineFor(update: AgentResponseUpdate, sessionId: string): Record<string, unknown> | undefined {
    switch (update.type) {
      case 'text-delta':
      case 'reasoning-delta':
        return { type: update.type, delta: update.delta };
      case 'tool-call-end':
        return {
          type: 'tool-call',
          callId: update.callId,
          name: update.name,
          arguments: parseArguments(update.arguments),
        };
      case 'tool-called':
        return { type: 'tool-result', callId: update.callId, name: update.name, result: update.result };
      case 'tool-progress':
        return { type: 'tool-progress', callId: update.callId, name: update.name, message: update.message };
      case 'tool-approval-request':
      case 'input-request':
        return { ...update };
      case 'warning':
        return { type: 'warning', message: update.message };
      case 'error':
        return { type: 'error', code: update.code, message: update.message };
      case 'usage':
        this.usage = this.usage ? addUsage(this.usage, update.usage) : update.usage;
        return undefined;
      case 'finish': {
        // Without its own usage, `finish` takes the sum of every usage update, earlier turns included.
        const usage = update.usage
          ? this.carried
            ? addUsage(this.carried, update.usage)
            : update.usage
          : (this.usage ?? this.carried);
        return { type: 'finish', reason: update.reason, ...(usage && { usage }), sessionId };
      }
      default:
        return undefined;
    }
  }
}
