import type { AgentResponseUpdate, ToolApprovalRequestUpdate, Usage } from '@raf/core';

/** What a sub-agent's run said, gathered from its updates: its answer, its requests, how it ended. */
export class RunTally {
  /** The text after the last tool results: the answer. */
  text = '';
  requests: ToolApprovalRequestUpdate[] = [];
  reason = 'other';
  usage: Usage | undefined;
  failure: string | undefined;

  add(update: AgentResponseUpdate): void {
    switch (update.type) {
      case 'text-delta':
        this.text += update.delta;
        break;
      case 'tool-called':
        this.text = '';
        break;
      case 'tool-approval-request':
        this.requests.push(update);
        break;
      case 'error':
        this.failure = update.message;
        break;
      case 'finish':
        this.reason = update.reason;
        if (update.usage) this.usage = update.usage;
        break;
      default:
        break;
    }
  }

  get paused(): boolean {
    return this.reason === 'awaitingApproval' && this.requests.length > 0;
  }

  /** The answer, marked when the run ended some other way than a normal stop. */
  get answer(): string {
    return this.reason === 'stop' || this.reason === 'length'
      ? this.text
      : `${this.text}\n(the sub-agent stopped early: ${this.reason})`;
  }
}
