import { RunEventMapper } from '@raf/framework';
import { describe, expect, it } from 'vitest';
import { parseRunEvent } from './run-event-schema.js';

describe('parseRunEvent', () => {
  it("reads back a stored input-request (an MCP server's question) as the mapper emitted it", () => {
    const event = new RunEventMapper().map(
      {
        type: 'input-request',
        callId: 'c1',
        source: 'mcp:people',
        message: 'Which team?',
        mode: 'form',
        schema: { type: 'object', properties: { team: { type: 'string' } }, required: ['team'] },
      },
      's1',
    );
    expect(event?.type).toBe('input-request');
    expect(parseRunEvent(JSON.stringify(event), 'r1', 3)).toEqual(event);
  });

  it('refuses an input-request without its message, naming the run and event', () => {
    const text = JSON.stringify({ type: 'input-request', callId: 'c1', source: 'mcp:x', mode: 'url' });
    expect(() => parseRunEvent(text, 'r1', 4)).toThrow(/run r1 event 4/);
  });
});
