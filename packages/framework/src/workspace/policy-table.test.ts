import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Outcome, PATH_CASES, type PathCase, type PolicyName } from '../test-support/policy-cases.js';
import { callTool, makeWorkspaceFixture, workspaceTools } from '../test-support/workspace-fixture.js';

const POLICIES = { allow: 'AllowAll', approve: 'ApproveOutside', deny: 'DenyOutside' } as const;

function expected(c: PathCase, policy: PolicyName): Outcome {
  if (typeof c.where === 'object') return c.where[policy];
  if (c.where === 'inside') return 'runs';
  if (c.where === 'refused') return 'error';
  return policy === 'allow' ? 'runs' : policy === 'approve' ? 'asks' : 'error';
}

const rows = PATH_CASES.flatMap((c) =>
  (['allow', 'approve', 'deny'] as const).map((p) => [c.name, p, c] as const),
);

describe('path guard × policy table (real temporary directories)', () => {
  it.each(rows)('%s — %s', async (_name, policy, c) => {
    const fx = await makeWorkspaceFixture();
    try {
      const tools = workspaceTools(c.root?.(fx) ?? fx.root, POLICIES[policy]);
      const tool = tools.get(c.tool);
      if (!tool) throw new Error(`no tool ${c.tool}`);
      const outcome = await callTool(tool, c.args(fx));
      const want = expected(c, policy);
      if (want === 'asks') {
        expect(outcome.asked).toBe(true);
      } else {
        expect(outcome.asked).toBe(false);
        expect(outcome.result?.ok, JSON.stringify(outcome.result)).toBe(want === 'runs');
        if (want === 'error' && policy === 'deny' && c.where === 'outside') {
          expect(outcome.result?.error).toMatch(/^Access denied: '.*' is outside workspace 'ws'$/);
        }
        if (want === 'error' && c.error) expect(outcome.result?.error).toMatch(c.error);
        if (want === 'runs') {
          const label = ((outcome.result?.data ?? {}) as { scope: string }).scope;
          expect(label).toBe(c.where === 'inside' ? 'workspace' : 'outside_workspace');
        }
      }
      c.verify?.(fx, policy, outcome.result);
    } finally {
      await fx.cleanup();
    }
  });

  it('lists every case in the framework README', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const rowsInReadme = readme.split('\n').map((line) => line.split('|').map((cell) => cell.trim()));
    for (const c of PATH_CASES) {
      const row = rowsInReadme.find((cells) => cells[1] === c.name);
      expect(row, c.name).toEqual([
        '',
        c.name,
        `\`${c.tool}\``,
        expected(c, 'allow'),
        expected(c, 'approve'),
        expected(c, 'deny'),
        '',
      ]);
    }
  });
});
