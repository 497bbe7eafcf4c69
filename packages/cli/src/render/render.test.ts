import type { AgentResponseUpdate } from '@raf/core';
import { describe, expect, it } from 'vitest';
import { HumanRenderer } from './human.js';
import { NdjsonRenderer } from './ndjson.js';

function stream(isTTY: boolean) {
  const chunks: string[] = [];
  return { chunks, isTTY, write: (text: string) => chunks.push(text) };
}

const updates: AgentResponseUpdate[] = [
  { type: 'tool-call-end', callId: 'c1', name: 'index', arguments: '{}' },
  { type: 'tool-progress', callId: 'c1', name: 'index', message: 'scanning 1,200 files' },
  { type: 'tool-progress', callId: 'c1', name: 'index', message: 'writing the index' },
  { type: 'tool-called', callId: 'c1', name: 'index', result: { ok: true, data: { count: 3 } } },
  { type: 'text-delta', delta: 'Indexed.' },
  { type: 'finish', reason: 'stop' },
];

describe('tool progress in the CLI', () => {
  it('shows progress as a transient line on a terminal, replaced by the next output', () => {
    const out = stream(true);
    const err = stream(true);
    const human = new HumanRenderer(out, err);
    for (const update of updates) human.render(update);
    expect(err.chunks).toEqual([
      '\r\x1b[2K… index: scanning 1,200 files',
      '\r\x1b[2K… index: writing the index',
      '\r\x1b[2K',
      '→ index {} ✓ 3 entries\n',
      '\r\x1b[2K', // the "thinking" spinner that followed the result, cleared by the answer
    ]);
    expect(out.chunks).toEqual(['Indexed.', '\n']);
  });

  it('leaves progress out of piped (non-terminal) output', () => {
    const err = stream(false);
    const human = new HumanRenderer(stream(false), err);
    for (const update of updates) human.render(update);
    expect(err.chunks).toEqual(['→ index {} ✓ 3 entries\n']);
  });

  it('prints progress as tool-progress lines with --json', () => {
    const lines: string[] = [];
    const json = new NdjsonRenderer((line) => lines.push(line));
    for (const update of updates) json.render(update, 's1');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { type: 'tool-call', callId: 'c1', name: 'index', arguments: {} },
      { type: 'tool-progress', callId: 'c1', name: 'index', message: 'scanning 1,200 files' },
      { type: 'tool-progress', callId: 'c1', name: 'index', message: 'writing the index' },
      { type: 'tool-result', callId: 'c1', name: 'index', result: { ok: true, data: { count: 3 } } },
      { type: 'text-delta', delta: 'Indexed.' },
      { type: 'finish', reason: 'stop', sessionId: 's1' },
    ]);
  });
});
