import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// Issue 26, "children must not outlive raf": after `kill -9` of `raf run`, a `run_command` shell
// (unconfined, in its own process group) went on past its own timeout_secs. A real CLI process
// runs a real long command; it is killed with SIGKILL; the command and what it forked must die.

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const bin = join(repo, 'packages/cli/src/bin.ts');
// By URL: the agent's folder (a temp dir) has no node_modules to resolve `tsx` from.
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
// The built binary when there is one (CI builds first: no tsx transpiling the CLI in every process), else the source.
const built = join(dirname(bin), '../dist/bin.js');
const RAF_PROCESS = existsSync(built) ? [built] : ['--conditions=@raf/source', '--import', tsx, bin];

let dir: string;
let server: MockModelServer | undefined;
let cli: ChildProcess | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-children-'));
});
afterEach(async () => {
  cli?.kill('SIGKILL');
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

const workingFolder = (pid: number) => {
  try {
    return realpathSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
};

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return check();
}

describe('run_command children die with raf', { timeout: 90_000 }, () => {
  for (const policy of ['allow', 'deny']) {
    it(`under ${policy}: kill -9 of raf run ends the command and its children, past timeout_secs`, async () => {
      // The shell records its pid and a forked child's, then writes markers after 4 s; its own
      // timeout is 3 s (raf would have killed it then, had raf lived).
      const command =
        'echo $$ > shell.pid; (sleep 4; echo late > child-marker) & echo $! > child.pid; sleep 4; echo late > marker';
      server = await startMockModelServer({
        turns: [
          { toolCalls: [{ id: 'c1', name: 'run_command', arguments: { command, timeout_secs: 3 } }] },
          { text: 'done' },
        ],
      });
      await writeFile(
        join(dir, 'agent.yaml'),
        `name: k\nmodel: { id: m, provider: custom, connection: { endpoint: "${server.baseURL}" } }\ncontexts:\n  - kind: workspace\n    name: w\n    config: { root: ., policy: ${policy} }\ntools:\n  - kind: shell\n    name: run_command\n`,
      );
      cli = spawn(process.execPath, [...RAF_PROCESS, 'run', 'agent.yaml', '-i', 'go', '--approve', 'all'], {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { PATH: process.env.PATH ?? '', HOME: dir },
      });
      let stderr = '';
      cli.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const started = await until(
        // Written by the shell: wait for whole lines, never read an empty file as pid 0.
        () =>
          ['shell.pid', 'child.pid'].every(
            (name) => existsSync(join(dir, name)) && readFileSync(join(dir, name), 'utf8').endsWith('\n'),
          ),
        45_000,
      );
      expect(started, stderr).toBe(true);
      const shell = Number((await readFile(join(dir, 'shell.pid'), 'utf8')).trim());
      const child = Number((await readFile(join(dir, 'child.pid'), 'utf8')).trim());
      // Inside a sandbox the pids are the namespace's (pid 2 there may be a kernel thread here):
      // a pid names our command only when its process works in this folder; else only the
      // markers say anything.
      const ours = (pid: number) => alive(pid) && workingFolder(pid) === realpathSync(dir);
      const visible = ours(shell) && ours(child);
      cli.kill('SIGKILL');
      if (visible) {
        expect(await until(() => !alive(shell) && !alive(child), 5_000)).toBe(true);
      }
      // Past the markers' 4 s: nothing wrote them.
      await new Promise((r) => setTimeout(r, 5_000));
      expect(existsSync(join(dir, 'marker'))).toBe(false);
      expect(existsSync(join(dir, 'child-marker'))).toBe(false);
    });
  }
});
