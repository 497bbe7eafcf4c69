import { describe, expect, it } from 'vitest';
import { analyst, answer } from './main.js';

describe('the code example', () => {
  it('expands kind: code to code_interpreter (sequential, proxied from workers)', async () => {
    const plan = await analyst().explain();
    expect(plan.tools.map((t) => [t.name, t.kind, t.executionMode, t.route])).toEqual([
      ['code_interpreter', 'code', 'sequential', 'main-process-proxy'],
    ]);
  });

  it('answers offline on its recorded model, building state step by step in QuickJS', async () => {
    let output = '';
    const response = await answer('What was the average order value, and which order was largest?', (t) => {
      output += t;
    });
    expect(response.finishReason).toBe('stop');
    const results = output
      .split('\n')
      .filter((line) => line.startsWith('→ code_interpreter '))
      .map((line) => JSON.parse(line.slice('→ code_interpreter '.length)));
    expect(results.map((r) => [r.ok, r.data.stdout, r.data.result])).toEqual([
      [true, '4 orders loaded\n', 4],
      [true, '', { average: 81.25, largest: { id: 1003, total: 199.5 } }],
    ]);
    expect(results[0].data.limits).toMatchObject({
      timeout_secs: 5,
      memory_limit: '128m',
      confinement: 'quickjs',
    });
    expect(output).toMatch(
      /The average order value is 81\.25, and the largest order is #1003 \(199\.5\)\.\n$/,
    );
  });
});
