import { describe, expect, it } from 'vitest';
import { answer, supportAgent } from './main.js';

describe('the mixed-mode example', () => {
  it('routes the YAML scope tool to the workspace; the YAML function and the code tool stay on the agent', async () => {
    const plan = await supportAgent().explain();
    expect(plan.tools.map((t) => [t.name, t.source, t.workspace])).toEqual([
      ['lookup_customer', 'static', null],
      ['today', 'static', null],
      ['read_file', 'workspace', 'tickets'],
    ]);
  });

  it('answers a ticket offline on its recorded model', async () => {
    let output = '';
    const response = await answer('Please answer ticket T-1001', (t) => (output += t));
    expect(response.finishReason).toBe('stop');
    expect(output).toContain('→ read_file {"ok":true,"data":{"path":');
    expect(output).toContain('→ lookup_customer {"ok":true,"data":{"name":"Ana Lima","plan":"Business"}}');
    expect(output).toContain('→ today {"ok":true,"data":{"date":"2026-11-29"}}');
    expect(output).toMatch(/Hi Ana, thanks for reporting T-1001\./);
  });
});
