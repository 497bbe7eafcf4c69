import { access, mkdtemp, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { type PgCluster, postgresSkipReason, startPgCluster } from '@raf/postgres/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIO } from './memory-io.js';

// The authorization server and protected MCP server of @raf/mcp's tests (outside this package's sources).
interface OAuthTestServers {
  mcpUrl: string;
  close(): Promise<void>;
}
const oauthServers = fileURLToPath(new URL('../../mcp/src/test-support/oauth-server.ts', import.meta.url));
const startOAuthServers = async (): Promise<OAuthTestServers> =>
  (
    (await import(pathToFileURL(oauthServers).href)) as { startOAuthServers(): Promise<OAuthTestServers> }
  ).startOAuthServers();

let dir: string;
let model: MockModelServer | undefined;
let oauth: OAuthTestServers | undefined;
let cluster: PgCluster | undefined;
beforeAll(async () => {
  if (!postgresSkipReason) cluster = await startPgCluster();
}, 60_000);
afterAll(() => cluster?.stop());
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-oauth-store-')));
});
afterEach(async () => {
  await model?.close();
  await oauth?.close();
  model = undefined;
  oauth = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function loginRunLogout(store: string) {
  oauth = await startOAuthServers();
  model = await startMockModelServer({
    turns: [{ toolCalls: [{ id: 'c1', name: 'whoami', arguments: {} }] }, { text: 'done' }],
  });
  await writeFile(
    join(dir, 'agent.yaml'),
    `name: tracked
model: { id: m, provider: custom, connection: { endpoint: "${model.baseURL}" } }
tools:
  - kind: mcp
    name: tracker
    config:
      url: ${oauth.mcpUrl}
      connection: { kind: oauth, scopes: [read] }
`,
  );
  const login = createMemoryIO({ cwd: dir });
  const exit = main(['mcp', 'login', 'agent.yaml', 'tracker', '--store', store], login.io);
  for (let i = 0; i < 400 && !/\nhttp\S+\n/.test(login.out()); i++)
    await new Promise((r) => setTimeout(r, 25));
  const url = /\n(http\S+)\n/.exec(login.out())?.[1];
  expect(url, login.err()).toMatch(/\/authorize\?/);
  const approve = await fetch(url!, { redirect: 'manual' });
  await (await fetch(approve.headers.get('location')!)).text();
  expect(await exit, login.err()).toBe(0);
  expect(login.err()).toMatch(/logged in to MCP server 'tracker' .*; tokens kept in the store /);
  // Not in the local files: in the store.
  await expect(access(join(dir, '.raf/mcp-auth'))).rejects.toThrow();

  const run = createMemoryIO({ cwd: dir });
  expect(await main(['run', 'agent.yaml', '-i', 'who', '--json', '--store', store], run.io), run.err()).toBe(
    0,
  );
  expect(run.lines().find((l) => l.type === 'tool-result')).toMatchObject({
    result: { ok: true, data: 'user-ada' },
  });
  // Another store (the default .raf) has no login.
  const elsewhere = createMemoryIO({ cwd: dir });
  expect(await main(['run', 'agent.yaml', '-i', 'who'], elsewhere.io)).toBe(2);
  expect(elsewhere.err()).toContain('needs an OAuth login');

  const logout = createMemoryIO({ cwd: dir });
  expect(await main(['mcp', 'logout', 'agent.yaml', 'tracker', '--store', store], logout.io)).toBe(0);
  const after = createMemoryIO({ cwd: dir });
  expect(await main(['run', 'agent.yaml', '-i', 'who', '--store', store], after.io)).toBe(2);
  expect(after.err()).toContain('needs an OAuth login');
  for (const text of [login.out(), login.err(), run.out(), run.err()])
    expect(text).not.toMatch(/access_token/);
}

describe('raf mcp login --store: tokens in the state store', { timeout: 90_000 }, () => {
  it('sqlite: login, a run on the store, logout', async () => {
    await loginRunLogout('sqlite:state.db');
    expect((await stat(join(dir, 'state.db'))).mode & 0o777).toBe(0o600);
  });

  it.skipIf(postgresSkipReason !== undefined)('postgres: login, a run on the store, logout', async () => {
    await loginRunLogout(cluster!.url);
  });
});
