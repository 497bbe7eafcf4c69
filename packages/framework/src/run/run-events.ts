import type {
  AgentResponseUpdate,
  FinishReason,
  FinishUpdate,
  InputRequestUpdate,
  JSONValue,
  ToolApprovalRequestUpdate,
  ToolResult,
  Usage,
} from '@raf/core';
import { addUsage } from '@raf/core';
import { nestsDeeperThan } from '@raf/core/internal';
import { MAX_ARGUMENT_DEPTH } from '../tools/json-depth.js';

/**
 * The stable, machine-readable updates of a run (SPEC §11.1): what `raf run --json` prints one a
 * line and what `raf serve` streams and stores. Extra fields may be added; these are never renamed.
 */
export type RunEvent =
  | { type: 'text-delta'; delta: string }
  | { type: 'reasoning-delta'; delta: string }
  | { type: 'tool-call'; callId: string; name: string; arguments: JSONValue }
  | { type: 'tool-result'; callId: string; name: string; result: ToolResult }
  | { type: 'tool-progress'; callId: string; name: string; message: string }
  | ToolApprovalRequestUpdate
  /** A running tool's question to the user (an MCP elicitation, SPEC §14.4). */
  | InputRequestUpdate
  | { type: 'warning'; message: string }
  | { type: 'error'; code: string; message: string }
  | { type: 'finish'; reason: FinishReason; usage?: Usage; output?: JSONValue; sessionId: string | null };

/** The call's arguments as JSON when they parse and nest sanely, else the text the model sent. */
function parseArguments(text: string): JSONValue {
  try {
    const parsed = JSON.parse(text) as JSONValue;
    return nestsDeeperThan(parsed, MAX_ARGUMENT_DEPTH) ? text : parsed;
  } catch {
    return text;
  }
}

/**
 * Maps agent updates to run events (SPEC §11.1). Streaming noise (argument deltas, metadata) is
 * dropped; usage is summed into the final `finish`. One mapper per run: it carries the usage.
 */
export class RunEventMapper {
  private usage: Usage | undefined;
  /** The usage of the turns whose `finish` was passed over (see `continueAfter`). */
  private carried: Usage | undefined;

  /**
   * The run paused on `finish` and goes on in the same stream (its approvals were answered): that
   * `finish` is not emitted — a stream has one, always last — and its usage counts in the last one.
   */
  continueAfter(finish: FinishUpdate): void {
    if (finish.usage) this.carried = this.carried ? addUsage(this.carried, finish.usage) : finish.usage;
  }

  map(update: AgentResponseUpdate, sessionId: string | null): RunEvent | undefined {
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
        return {
          type: 'finish',
          reason: update.reason,
          ...(usage && { usage }),
          // An outputSchema's validated answer (SPEC §15).
          ...(update.output !== undefined && { output: update.output }),
          sessionId,
        };
      }
      default:
        return undefined;
    }
  }
}
