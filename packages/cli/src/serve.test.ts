import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

let dir: string;
let model: MockModelServer;

const repo = fileURLToPath(new URL('../../../', import.meta.url));
/** The built CLI when there is one, else the source through tsx: a user's `raf` process. */
const built = join(repo, 'packages/cli/dist/bin.js');
const RAF = existsSync(built)
  ? [built]
  : [
      '--conditions=@raf/source',
      '--import',
      import.meta.resolve('tsx'),
      join(repo, 'packages/cli/src/bin.ts'),
    ];

/** Whether this machine can listen on IPv6 loopback (some containers have no ::1). */
const HAS_IPV6 = await new Promise<boolean>((resolve) => {
  const probe = createNetServer();
  probe.once('error', () => resolve(false));
  probe.listen(0, '::1', () => probe.close(() => resolve(true)));
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'raf-serve-cli-'));
  model = await startMockModelServer({ turns: () => ({ text: 'hello from the model' }) });
  await mkdir(join(dir, 'agents'));
  for (const name of ['Greeter', 'Second One'])
    await writeFile(
      join(dir, 'agents', `${name.split(' ')[0]!.toLowerCase()}.yaml`),
      `kind: prompt\nname: ${name}\nmodel: { id: m, provider: custom, connection: { endpoint: "${model.baseURL}" } }\ninstructions: Greet.\n`,
    );
});
afterAll(async () => {
  await model.close();
  await rm(dir, { recursive: true, force: true });
});

/** `raf serve …` in-process until `stop()` (Ctrl-C); the URL and token it printed. */
async function serve(args: string[]) {
  const memory = createMemoryIO({ cwd: dir });
  const exit = main(['serve', ...args], memory.io);
  const deadline = Date.now() + 20_000;
  while (!memory.out().includes('\n') || (!memory.out().includes('token:') && !args.includes('--tokens'))) {
    if (Date.now() > deadline) throw new Error(`raf serve did not start: ${memory.err()}`);
    const early = await Promise.race([exit, new Promise((r) => setTimeout(() => r(undefined), 25))]);
    if (early !== undefined) throw new Error(`raf serve exited ${early}: ${memory.err()}`);
  }
  const url = memory.out().match(/raf serve: (\S+)/)![1]!;
  const token = memory.out().match(/token: (\S+)/)?.[1];
  return {
    url,
    token,
    memory,
    stop: async () => {
      memory.interrupt();
      return exit;
    },
  };
}

describe('raf serve', () => {
  it('serves a folder of agents on loopback with one generated token, until Ctrl-C', async () => {
    const server = await serve(['agents', '--store', 'memory:']);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.token).toMatch(/^[\w-]{32}$/);
    const auth = { authorization: `Bearer ${server.token}` };
    const agents = (await (await fetch(`${server.url}/v1/agents`, { headers: auth })).json()) as {
      agents: { name: string }[];
    };
    expect(agents.agents.map((a) => a.name)).toEqual(['greeter', 'second-one']);
    const started = await fetch(`${server.url}/v1/agents/greeter/runs`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"input":"hi"}',
    });
    const { runId } = (await started.json()) as { runId: string };
    const text = await (await fetch(`${server.url}/v1/runs/${runId}/events`, { headers: auth })).text();
    expect(text).toContain('"delta":"hello "');
    expect(text).toMatch(/id: \d+\ndata: \{"type":"finish","reason":"stop"/);
    expect((await fetch(`${server.url}/v1/agents`)).status).toBe(401);
    expect(await server.stop()).toBe(0);
    expect(server.memory.err()).toContain('raf serve: stopped');
  });

  it('refuses a non-loopback host without --tokens, and a bad tokens file, before serving', async () => {
    const open = createMemoryIO({ cwd: dir });
    expect(await main(['serve', 'agents', '--host', '0.0.0.0'], open.io)).toBe(2);
    expect(open.err()).toMatch(/--tokens FILE/);
    await writeFile(join(dir, 'short.json'), '{"short":"team"}');
    const short = createMemoryIO({ cwd: dir });
    expect(await main(['serve', 'agents', '--tokens', 'short.json'], short.io)).toBe(2);
    expect(short.err()).toMatch(/token number 1 is shorter than 16 characters/);
    expect(short.err()).not.toContain('"short"');
    // A token listed twice (two tenants) or a "__proto__" entry: refused, not served as the last one.
    await writeFile(
      join(dir, 'dup.json'),
      '{"tenantAAAAAAAAAAAAAAAA1": "alice",\n "tenantAAAAAAAAAAAAAAAA1": "bob"}',
    );
    const dup = createMemoryIO({ cwd: dir });
    expect(await main(['serve', 'agents', '--tokens', 'dup.json'], dup.io)).toBe(2);
    expect(dup.err()).toContain(`dup.json:2: token number 2 repeats an earlier token`);
    expect(dup.err()).not.toContain('tenantAAAA');
    await writeFile(join(dir, 'proto.json'), '{"tenantAAAAAAAAAAAAAAAA1": "alice", "__proto__": {}}');
    const proto = createMemoryIO({ cwd: dir });
    expect(await main(['serve', 'agents', '--tokens', 'proto.json'], proto.io)).toBe(2);
    expect(proto.err()).toContain('proto.json:1: a "__proto__" key is not a token');
    const none = createMemoryIO({ cwd: dir });
    expect(await main(['serve'], none.io)).toBe(2);
  });

  it('with --tokens maps each token to its tenant', async () => {
    await writeFile(
      join(dir, 'tokens.json'),
      JSON.stringify({ 'token-for-team-a-000000': 'a', 'token-for-team-b-000000': 'b' }),
    );
    // Other users of the machine could read every tenant's token: said, not refused.
    await chmod(join(dir, 'tokens.json'), 0o644);
    const server = await serve(['agents/greeter.yaml', '--tokens', 'tokens.json', '--store', 'memory:']);
    expect(server.token).toBeUndefined();
    expect(server.memory.err()).toContain(
      '--tokens tokens.json is readable or writable by other users (mode 644)',
    );
    const as = (token: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json' });
    const { runId } = (await (
      await fetch(`${server.url}/v1/agents/greeter/runs`, {
        method: 'POST',
        headers: as('token-for-team-a-000000'),
        body: '{"input":"hi"}',
      })
    ).json()) as { runId: string };
    expect(
      (await fetch(`${server.url}/v1/runs/${runId}`, { headers: as('token-for-team-a-000000') })).status,
    ).toBe(200);
    expect(
      (await fetch(`${server.url}/v1/runs/${runId}`, { headers: as('token-for-team-b-000000') })).status,
    ).toBe(404);
    expect(await server.stop()).toBe(0);
    await chmod(join(dir, 'tokens.json'), 0o600);
    const private_ = await serve(['agents/greeter.yaml', '--tokens', 'tokens.json', '--store', 'memory:']);
    expect(private_.memory.err()).not.toContain('other users');
    expect(await private_.stop()).toBe(0);
  });

  it('--public-url is the URL the A2A cards name; a malformed one is refused', async () => {
    const server = await serve([
      'agents/greeter.yaml',
      '--store',
      'memory:',
      '--public-url',
      'https://agents.example.com',
    ]);
    const card = await (await fetch(`${server.url}/a2a/greeter/.well-known/agent-card.json`)).text();
    expect(card).toContain('https://agents.example.com/a2a/greeter');
    expect(card).not.toContain('127.0.0.1');
    expect(await server.stop()).toBe(0);
    const bad = createMemoryIO({ cwd: dir });
    expect(await main(['serve', 'agents', '--public-url', 'agents.example.com'], bad.io)).toBe(2);
    expect(bad.err()).toMatch(/--public-url agents\.example\.com: expected an http\(s\) URL/);
  });

  it.runIf(HAS_IPV6)(
    'a real raf serve --host [::1] (or ::1) listens on IPv6 loopback without --tokens and shows http://[::1]:port',
    async () => {
      for (const host of ['[::1]', '::1']) {
        const child = spawn(
          process.execPath,
          [...RAF, 'serve', 'agents', '--host', host, '--port', '0', '--store', 'memory:'],
          { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        try {
          let out = '';
          let err = '';
          child.stderr.on('data', (chunk) => (err += chunk));
          const url = await new Promise<string>((resolve, reject) => {
            child.stdout.on('data', (chunk) => {
              out += chunk;
              const found = out.match(/raf serve: (\S+)\n/);
              if (found) resolve(found[1]!);
            });
            child.once('exit', (code) =>
              reject(new Error(`raf serve --host ${host} exited ${code}: ${err}`)),
            );
          });
          expect(url).toMatch(/^http:\/\/\[::1\]:\d+$/);
          const health = await fetch(`${url}/healthz`);
          expect([host, health.status]).toEqual([host, 200]);
        } finally {
          const exited = new Promise((resolve) => child.once('close', resolve));
          child.kill('SIGINT');
          await exited;
        }
      }
    },
    60_000,
  );
});
