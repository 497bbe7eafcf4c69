import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMemoryIO, main } from '@raf/cli';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const question =
  "Add 17 and 25, echo the sum back to me, and tell me what the server's architecture doc covers.";
// Run in place (the server comes from this folder's node_modules); sessions go to a temp folder.
let sessions: string;
beforeEach(async () => {
  sessions = await mkdtemp(join(tmpdir(), 'raf-mcp-example-'));
});
afterEach(() => rm(sessions, { recursive: true, force: true }));
const dir = here;

describe('the mcp example', () => {
  it('runs offline: the recorded model calls server-everything over stdio, the gated echo is approved', async () => {
    const run = createMemoryIO({ cwd: dir });
    const code = await main(
      ['run', 'agent.yaml', '-i', question, '--approve', 'all', '--sessions-dir', sessions],
      run.io,
    );
    expect(code, run.err()).toBe(0);
    expect(run.err()).toBe(
      [
        '→ get-sum {"a":17,"b":25} ✓ done',
        '→ read_mcp_resource {"server":"docs","uri":"demo://resource/static/document/architecture.md"} ✓ done',
        '✓ approved (--approve all): echo {"message":"17 + 25 = 42"}',
        '→ echo {"message":"17 + 25 = 42"} ✓ done',
        '',
      ].join('\n'),
    );
    expect(run.out()).toMatch(/^17 \+ 25 = 42 \(echoed back by the server\)\. The architecture doc covers/);
  }, 60_000);

  it('pauses for the gated tool (exit 3) and resumes in a new process with --session', async () => {
    const first = createMemoryIO({ cwd: dir });
    expect(
      await main(
        ['run', 'agent.yaml', '-i', question, '--session', 'demo', '--json', '--sessions-dir', sessions],
        first.io,
      ),
    ).toBe(3);
    const results = first.lines().filter((l) => l.type === 'tool-result');
    expect(results.map((r) => [r.name, (r.result as { ok: boolean }).ok])).toEqual([
      ['get-sum', true],
      ['read_mcp_resource', true],
    ]);
    expect(first.lines().at(-1)).toMatchObject({
      type: 'finish',
      reason: 'awaitingApproval',
      sessionId: 'demo',
    });

    const resumed = createMemoryIO({ cwd: dir });
    expect(
      await main(
        ['run', 'agent.yaml', '--session', 'demo', '--approve', 'all', '--json', '--sessions-dir', sessions],
        resumed.io,
      ),
    ).toBe(0);
    expect(resumed.lines().find((l) => l.type === 'tool-result')).toMatchObject({
      name: 'echo',
      result: { ok: true, data: 'Echo: 17 + 25 = 42' },
    });
  }, 60_000);

  it('inspect lists the MCP tools with their server, gate and route', async () => {
    const run = createMemoryIO({ cwd: dir });
    expect(await main(['inspect', 'agent.yaml', '--json'], run.io), run.err()).toBe(0);
    const plan = run.lines()[0] as { tools: Record<string, unknown>[] };
    expect(plan.tools.map((t) => [t.name, t.source, t.server ?? t.context, t.approval, t.route])).toEqual([
      ['echo', 'static', 'everything', 'always', 'main-process-proxy'],
      ['get-sum', 'static', 'everything', 'never', 'main-process-proxy'],
      ['read_mcp_resource', 'injected', 'docs', 'never', 'main-process-proxy'],
    ]);
  }, 60_000);
});
