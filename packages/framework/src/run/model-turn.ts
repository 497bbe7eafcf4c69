import { type AgentResponseUpdate, addUsage, type FinishUpdate, type ToolCall, type Usage } from '@raf/core';
import type { Turn } from '../pipeline/step-runner.js';
import type { ChatOutcome } from '../telemetry/run-trace.js';
import type { RunState } from './run-state.js';

/**
 * Reads one model call's batches as they stream: collects the text, reasoning, calls and usage of
 * the turn (the run's usage in the state with it) and hands back what passes on to the caller,
 * the model's own `finish` held back (it ends this turn only, not the run).
 */
export class TurnReader implements Turn {
  text = '';
  reasoning = '';
  calls: ToolCall[] = [];
  finish: FinishUpdate | undefined = undefined;
  failed = false;
  usage: Usage | undefined = undefined;
  private error: { type: string; message: string } | undefined = undefined;
  private responseId: string | undefined = undefined;
  private responseModel: string | undefined = undefined;

  constructor(private readonly state: RunState) {}

  read(batch: readonly AgentResponseUpdate[]): readonly AgentResponseUpdate[] {
    let forward = batch;
    for (let i = 0; i < batch.length; i++) {
      const update = batch[i]!;
      switch (update.type) {
        case 'finish':
          this.finish = update;
          forward = batch.filter((u) => u.type !== 'finish');
          break;
        case 'text-delta':
          this.text += update.delta;
          break;
        case 'reasoning-delta':
          this.reasoning += update.delta;
          break;
        case 'tool-call-end':
          this.calls.push({ id: update.callId, name: update.name, arguments: update.arguments });
          break;
        case 'usage':
          this.state.usage = addUsage(this.state.usage, update.usage);
          this.usage = addUsage(this.usage, update.usage);
          break;
        case 'response-metadata':
          this.responseId = update.id;
          this.responseModel = update.model;
          break;
        case 'error':
          this.failed = true;
          this.error = { type: update.code, message: update.message };
          break;
        default:
          break;
      }
    }
    return forward;
  }

  /** What the turn's `chat` span reports. */
  outcome(): ChatOutcome {
    const outcome: ChatOutcome = { usage: this.usage };
    if (this.finish) outcome.finishReason = this.finish.reason;
    if (this.responseId) outcome.responseId = this.responseId;
    if (this.responseModel) outcome.responseModel = this.responseModel;
    if (this.error) outcome.error = this.error;
    return outcome;
  }
}
