import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { buildTestAgent, context, type TestAgent, toolNamed } from '../test-support/agents.js';
import { eventually, REPO_ROOT, TEST_SERVER } from '../test-support/servers.js';
import { parentDeathAvailable } from './parent-death.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A root with `server.mjs` that starts the test server: the script the model may rewrite. */
function rootWithServer(): { root: string; script: string } {
  const root = mkdtempSync(join(tmpdir(), 'raf-mcp-restart-'));
  const script = join(root, 'server.mjs');
  writeFileSync(script, `await import(${JSON.stringify(pathToFileURL(TEST_SERVER).href)});\n`);
  return { root, script };
}

const call = (test: TestAgent, name: string, args: Record<string, unknown> = {}) =>
  toolNamed(test.agent.tools, name).execute(args, context());

// Issue 26 (High): the model rewrote `server.mjs` in the root, crashed the server, called it again,
// and the restart ran the model's code as a plain child of raf, outside any sandbox.
describe('a stdio server whose script changed since build', { timeout: 60_000 }, () => {
  it('is not restarted: the call fails with a clear error and the new code never runs', async () => {
    const { root, script } = rootWithServer();
    const test = await buildTestAgent({
      tools: [
        {
          kind: 'mcp',
          name: 'local',
          config: {
            command: process.execPath,
            args: ['--import', import.meta.resolve('tsx'), './server.mjs'],
            cwd: root,
          },
        },
      ],
    });
    cleanups.push(() => test.plugin.close());
    // The test's cwd is the root, so relative args resolve there; tsx resolves from the repo.
    expect(await call(test, 'echo', { text: 'before' })).toEqual({ ok: true, data: 'before' });
    const marker = join(root, 'pwned');
    writeFileSync(
      script,
      `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'ran');\n`,
    );
    expect((await call(test, 'crash')).ok).toBe(false);
    const refused = await call(test, 'echo', { text: 'after' });
    expect(refused).toEqual({
      ok: false,
      error: expect.stringMatching(
        new RegExp(
          `^MCP server 'local' is not restarted: '${script.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}' changed since the agent was built`,
        ),
      ),
    });
    // Refused for good: a second call does not start it either.
    expect((await call(test, 'echo', { text: 'again' })).ok).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });

  it('a file its env loads (NODE_OPTIONS --require) changed: not restarted either', async () => {
    const { root } = rootWithServer();
    const preload = join(root, 'pre.cjs');
    writeFileSync(preload, '');
    const test = await buildTestAgent({
      tools: [
        {
          kind: 'mcp',
          name: 'local',
          config: {
            command: process.execPath,
            args: ['--import', import.meta.resolve('tsx'), './server.mjs'],
            cwd: root,
            env: { NODE_OPTIONS: '--require ./pre.cjs' },
          },
        },
      ],
    });
    cleanups.push(() => test.plugin.close());
    expect(await call(test, 'echo', { text: 'before' })).toEqual({ ok: true, data: 'before' });
    const marker = join(root, 'pwned');
    writeFileSync(preload, `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`);
    expect((await call(test, 'crash')).ok).toBe(false);
    expect(await call(test, 'echo', { text: 'after' })).toMatchObject({
      ok: false,
      error: expect.stringContaining(`'${preload}' changed since the agent was built`),
    });
    expect(existsSync(marker)).toBe(false);
  });

  it('an unchanged script restarts as before', async () => {
    const { root } = rootWithServer();
    const test = await buildTestAgent({
      tools: [
        {
          kind: 'mcp',
          name: 'local',
          config: {
            command: process.execPath,
            args: ['--import', 'tsx', join(root, 'server.mjs')],
            cwd: REPO_ROOT,
          },
        },
      ],
    });
    cleanups.push(() => test.plugin.close());
    expect((await call(test, 'crash')).ok).toBe(false);
    expect(await call(test, 'echo', { text: 'back' })).toEqual({ ok: true, data: 'back' });
  });
});

/** Whether a process is alive (signal 0), and not a zombie. */
async function alive(pid: number): Promise<boolean> {
  // kill(0) and kill(-n) signal process groups (the test runner's own): only a real pid.
  if (!Number.isSafeInteger(pid) || pid <= 1) throw new Error(`not a process id: ${pid}`);
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return !/^\d+ \(.*\) Z/.test(stat);
}

// Issue 26: after kill -9 of raf, a stdio server that ignores EOF stayed alive.
describe('a stdio server dies with its parent', { timeout: 150_000 }, () => {
  it.runIf(parentDeathAvailable())(
    'kill -9 of the agent process takes down a server that ignores EOF and SIGTERM',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'raf-mcp-pdeath-'));
      const pidFile = join(dir, 'server.pid');
      // A parent that builds the agent (starting the server) and then waits, like raf run mid-turn.
      const parent = join(dir, 'parent.mts');
      writeFileSync(
        parent,
        `import { renameSync, writeFileSync } from 'node:fs';
import { buildTestAgent, context, toolNamed } from ${JSON.stringify(join(REPO_ROOT, 'packages/mcp/src/test-support/agents.ts'))};
import { stdioTestServer } from ${JSON.stringify(join(REPO_ROOT, 'packages/mcp/src/test-support/servers.ts'))};
const test = await buildTestAgent({ tools: [{ kind: 'mcp', name: 's', config: stdioTestServer({ TEST_SERVER_STUBBORN: '1' }) }] });
const who = await toolNamed(test.agent.tools, 'whoami').execute({}, context());
// Written whole, then renamed: the test must never read a half-written (empty) file as pid 0.
writeFileSync(${JSON.stringify(`${pidFile}.tmp`)}, String(JSON.parse(who.data).pid));
renameSync(${JSON.stringify(`${pidFile}.tmp`)}, ${JSON.stringify(pidFile)});
setInterval(() => {}, 1000);
`,
      );
      const child = spawn(process.execPath, ['--conditions=@raf/source', '--import', 'tsx', parent], {
        cwd: REPO_ROOT,
        stdio: 'ignore',
      });
      cleanups.push(async () => {
        child.kill('SIGKILL');
      });
      await eventually(() => existsSync(pidFile), 100_000, 'the server to start');
      const serverPid = Number(await readFile(pidFile, 'utf8'));
      expect(await alive(serverPid)).toBe(true);
      cleanups.push(async () => {
        try {
          // Checked above to be a real pid: kill(0, SIGKILL) would end the whole test run (CI 137).
          process.kill(serverPid, 'SIGKILL');
        } catch {}
      });
      child.kill('SIGKILL');
      const deadline = Date.now() + 10_000;
      while ((await alive(serverPid)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(await alive(serverPid)).toBe(false);
    },
  );
});
