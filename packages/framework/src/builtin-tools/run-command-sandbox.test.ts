import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ITool, JSONValue, ScopePolicy } from '@raf/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspaceFixture, type WorkspaceFixture } from '../test-support/workspace-fixture.js';
import { createLocalToolOperations } from '../workspace/operations/local-tool-operations.js';
import { WorkspaceContextProvider } from '../workspace/workspace-context-provider.js';
import { createRunCommandTool } from './run-command.js';

// Issue 10 items 1–3, 10, 11: what a command under `deny` can see and do inside bubblewrap, as
// root (CI runs as root) and as an unprivileged user.

function has(binary: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const bubblewrap = await createLocalToolOperations().process.canConfine();
const isRoot = process.getuid?.() === 0;
const canDropToNobody = bubblewrap && isRoot && has('setpriv');

let fx: WorkspaceFixture;
let wrapperDir: string;
/** A folder outside /tmp (a private /tmp alone would hide the fixture's `outside`), readable by all. */
let far: string;
beforeEach(async () => {
  fx = await makeWorkspaceFixture();
  far = await mkdtemp(join(existsSync('/var/tmp') ? '/var/tmp' : homedir(), 'raf-far-'));
  await chmod(far, 0o755);
  await writeFile(join(far, 'secret.txt'), 'far secret\n', { mode: 0o644 });
  await writeFile(join(fx.root, 'agent.yaml'), 'policy: deny\napi_key: sk-literal\n');
  await writeFile(join(fx.root, '.env'), 'OPENAI_API_KEY=sk-dotenv\n');
  await mkdir(join(fx.root, 'pkg'));
  await writeFile(join(fx.root, 'pkg', '.env.local'), 'TOKEN=nested\n');
  await mkdir(join(fx.root, '.git', 'hooks'), { recursive: true });
  await writeFile(join(fx.root, '.git', 'config'), '[core]\n');
  await mkdir(join(fx.root, 'srv', 'lib'), { recursive: true });
  await writeFile(join(fx.root, 'srv', 'lib', 'server.mjs'), 'serve()\n');
});
afterEach(async () => {
  await fx.cleanup();
  await rm(far, { recursive: true, force: true });
});

interface Options {
  bwrap?: string;
  properties?: Record<string, JSONValue>;
  policy?: ScopePolicy;
}

function commandTool(options: Options = {}): ITool {
  const operations = createLocalToolOperations(options.bwrap ? { bubblewrapPath: options.bwrap } : {});
  return new WorkspaceContextProvider(
    {
      root: fx.root,
      name: 'ws',
      policy: options.policy ?? 'DenyOutside',
      protectedPaths: [
        { path: 'agent.yaml', reason: 'agent definition' },
        // What the definition executes (a stdio server's script): seen, never changed.
        { path: 'srv/lib/server.mjs', reason: 'MCP server', readable: true },
      ],
      properties: options.properties ?? {},
    },
    { operations },
  ).addTool(createRunCommandTool()).tools[0] as ITool;
}

async function sh(tool: ITool, command: string): Promise<{ exit: number; out: string; err: string }> {
  const result = await tool.execute(
    { command, output_level: 'all' },
    { signal: new AbortController().signal, callId: 'c', approved: true },
  );
  if (!result.ok) throw new Error(result.error);
  const data = result.data as { exit_code: number; stdout?: string; stderr?: string; confinement: string };
  expect(data.confinement).toBe('bubblewrap');
  return { exit: data.exit_code, out: data.stdout ?? '', err: data.stderr ?? '' };
}

/** The checks every sandbox must pass, whoever runs it. */
function sandboxChecks(make: (options?: Options) => ITool) {
  it('has no capabilities and cannot remount / read-write', async () => {
    const tool = make();
    const caps = await sh(tool, 'grep -E "^Cap(Eff|Prm|Amb)" /proc/self/status');
    expect(caps.out).toMatch(/CapEff:\s+0000000000000000/);
    expect(caps.out).toMatch(/CapPrm:\s+0000000000000000/);
    const remount = await sh(tool, 'mount -o remount,rw / 2>&1; echo "rc=$?"');
    expect(remount.out).toMatch(/rc=[1-9]/);
    expect((await sh(tool, 'touch /usr/raf-escape 2>&1; echo "rc=$?"')).out).toMatch(/rc=1/);
    expect(existsSync('/usr/raf-escape')).toBe(false);
  });

  it('sees the roots read-write and nothing outside them but the system folders', async () => {
    const tool = make();
    expect((await sh(tool, 'echo in > inside.txt && cat inside.txt')).out).toBe('in\n');
    const outside = await sh(
      tool,
      `cat ../outside/secret.txt; cat ${join(fx.outside, 'secret.txt')}; cat ${join(far, 'secret.txt')}`,
    );
    expect(outside.out).toBe('');
    expect(outside.err).toMatch(/No such file/);
    const listing = await sh(tool, 'ls -a /');
    const top = listing.out.split('\n').filter((n) => n && n !== '.' && n !== '..');
    for (const name of top)
      expect([
        'bin',
        'dev',
        'etc',
        'lib',
        'lib32',
        'lib64',
        'libx32',
        'proc',
        'sbin',
        'tmp',
        'usr',
      ]).toContain(name);
    const hidden = await sh(tool, `ls ${homedir()}/.ssh /root /home /run /var/run 2>&1; echo "rc=$?"`);
    expect(hidden.out).toMatch(/rc=2/);
    expect(hidden.out).not.toMatch(/id_rsa|authorized_keys/);
    expect((await sh(tool, 'echo "$HOME"')).out).toBe(`${fx.root}\n`);
  });

  it('hides /etc secrets and the protected paths; .git is read-only', async () => {
    const tool = make();
    const secrets = await sh(tool, 'cat /etc/shadow /etc/gshadow 2>&1; echo "rc=$?"');
    expect(secrets.out).not.toMatch(/root:/);
    expect((await sh(tool, 'head -1 /etc/passwd')).out).toMatch(/^root:/);
    const reads = await sh(tool, 'cat agent.yaml .env pkg/.env.local 2>&1; ls -A .raf; echo "rc=$?"');
    expect(reads.out).not.toMatch(/sk-literal|sk-dotenv|nested/);
    expect(reads.out).toMatch(/rc=0/); // .raf exists (created to be hidden) and is empty
    const writes = await sh(
      tool,
      'echo "policy: allow" > agent.yaml; rm -f .env; touch .raf/governance.json; echo "#!/bin/sh" > .git/hooks/pre-commit; echo x >> .git/config; echo done',
    );
    expect(writes.out).toBe('done\n');
    expect(await readFile(join(fx.root, 'agent.yaml'), 'utf8')).toBe('policy: deny\napi_key: sk-literal\n');
    expect(existsSync(join(fx.root, '.env'))).toBe(true);
    expect(existsSync(join(fx.root, '.raf', 'governance.json'))).toBe(false);
    expect(existsSync(join(fx.root, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(await readFile(join(fx.root, '.git', 'config'), 'utf8')).toBe('[core]\n');
    expect((await sh(tool, 'cat .git/config')).out).toBe('[core]\n');
  });

  it('sees what the definition executes read-only, and cannot move its folders aside to replace it', async () => {
    const tool = make();
    const attempt = await sh(
      tool,
      'cat srv/lib/server.mjs; echo "evil()" > srv/lib/server.mjs; rm -f srv/lib/server.mjs; mv srv srv2; mv srv/lib srv/old; mkdir -p srv/lib; echo "evil()" > srv/lib/server.mjs; echo done',
    );
    expect(attempt.out).toBe('serve()\ndone\n');
    expect(await readFile(join(fx.root, 'srv', 'lib', 'server.mjs'), 'utf8')).toBe('serve()\n');
    expect(existsSync(join(fx.root, 'srv2'))).toBe(false);
    expect(existsSync(join(fx.root, 'srv', 'old'))).toBe(false);
    // The folders stay writable: a new file beside the script is fine.
    expect((await sh(tool, 'echo n > srv/lib/notes.txt && cat srv/lib/notes.txt')).out).toBe('n\n');
  });

  it('cannot reach a unix socket listening outside the roots', async () => {
    const path = join(far, 'host.sock');
    const server: Server = createServer((socket) => socket.end('HELLO\n'));
    await new Promise<void>((resolve) => server.listen(path, resolve));
    await chmod(path, 0o777);
    try {
      const probe = `${process.execPath} -e "require('net').connect('${path}').on('data',d=>process.stdout.write('got '+d)).on('error',e=>console.log('error',e.code))"`;
      // The same probe outside the sandbox reaches the server: the check below can fail.
      const open = commandTool({ policy: 'AllowAll' });
      const direct = await open.execute(
        { command: probe },
        { signal: new AbortController().signal, callId: 'c' },
      );
      expect(direct.ok && (direct.data as { stdout: string }).stdout).toBe('got HELLO\n');
      const confined = await sh(make(), probe);
      expect(confined.out).toMatch(/^error (ENOENT|EACCES)/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reads a readableOutside path, and only that', async () => {
    const shared = join(far, 'shared.txt');
    await writeFile(shared, 'shared\n', { mode: 0o644 });
    expect((await sh(make(), `cat ${shared} 2>&1`)).out).toMatch(/No such file/);
    const opened = make({ properties: { readableOutside: [shared] } });
    const read = await sh(opened, `cat ${shared}; cat ${join(far, 'secret.txt')} 2>&1; echo x > ${shared}`);
    expect(read.out).toMatch(/^shared\n.*No such file/s);
    expect(read.err).toMatch(/Read-only file system|Permission denied/);
    expect(await readFile(shared, 'utf8')).toBe('shared\n');
  });

  it('kills the command on timeout', async () => {
    const tool = make();
    const started = Date.now();
    const result = await tool.execute(
      { command: 'sleep 30', timeout_secs: 1 },
      { signal: new AbortController().signal, callId: 'c', approved: true },
    );
    expect(result).toEqual({ ok: false, error: 'timed out after 1 seconds' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });
}

let wrapperPath: string | undefined;

describe.runIf(bubblewrap && isRoot)('run_command under deny, run by root', () => {
  sandboxChecks((options) => commandTool(options));
});

describe.runIf(canDropToNobody)('run_command under deny, run by an unprivileged user (setpriv 65534)', () => {
  beforeAll(async () => {
    const base = await makeWorkspaceFixture();
    wrapperDir = base.base;
    wrapperPath = join(wrapperDir, 'bwrap-as-nobody');
    await writeFile(
      wrapperPath,
      '#!/bin/sh\nexec setpriv --reuid=65534 --regid=65534 --clear-groups bwrap "$@"\n',
      { mode: 0o755 },
    );
  });
  afterAll(() => rm(wrapperDir, { recursive: true, force: true }));
  beforeEach(async () => {
    // The unprivileged user must reach the workspace the way a user reaches their own project.
    await chmod(fx.base, 0o755);
    execFileSync('chown', ['-R', '65534:65534', fx.root]);
  });

  const nobodyTool = (options: Options = {}) => commandTool({ ...options, bwrap: wrapperPath as string });
  sandboxChecks(nobodyTool);

  it('runs as the unprivileged user', async () => {
    expect((await sh(nobodyTool(), 'id -u')).out).toBe('65534\n');
  });
});
