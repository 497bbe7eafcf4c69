import type { AgentResponseUpdate, FinishUpdate } from '@raf/core';
import { RunEventMapper } from '@raf/framework';
import { escapeJson } from './escape.js';

/**
 * The stable NDJSON lines of SPEC §11.1 (`raf run --json`): the framework's run events (the same
 * `raf serve` streams), one a line, with the characters a terminal could misread escaped.
 */
export class NdjsonRenderer {
  private readonly events = new RunEventMapper();

  constructor(private readonly write: (line: string) => void) {}

  render(update: AgentResponseUpdate, sessionId: string): void {
    const event = this.events.map(update, sessionId);
    if (event) this.write(`${escapeJson(JSON.stringify(event))}\n`);
  }

  /** See `RunEventMapper.continueAfter`: the held `finish` is not printed, its usage carried. */
  continueAfter(finish: FinishUpdate): void {
    this.events.continueAfter(finish);
  }
}
