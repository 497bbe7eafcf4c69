import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type MockModelServer, startMockModelServer } from '@raf/client/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'raf-cli-oauth-')));
});
afterEach(async () => {
  await model?.close();
  await oauth?.close();
  model = undefined;
  oauth = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('raf mcp login / logout', { timeout: 60_000 }, () => {
  it('prints the authorization URL, catches the redirect on 127.0.0.1, and raf run then reaches the server; no token printed', async () => {
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
    // Not logged in: the run fails at build (exit 2), saying what to do.
    const before = createMemoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', 'who'], before.io)).toBe(2);
    expect(before.err()).toContain('needs an OAuth login: run raf mcp login <agent file> tracker');

    const login = createMemoryIO({ cwd: dir });
    const exit = main(['mcp', 'login', 'agent.yaml', 'tracker'], login.io);
    for (let i = 0; i < 400 && !/\nhttp\S+\n/.test(login.out()); i++)
      await new Promise((r) => setTimeout(r, 25));
    const url = /\n(http\S+)\n/.exec(login.out())?.[1];
    expect(url, login.err()).toMatch(/\/authorize\?/);
    const approve = await fetch(url!, { redirect: 'manual' });
    await (await fetch(approve.headers.get('location')!)).text();
    expect(await exit, login.err()).toBe(0);
    expect(login.err()).toMatch(
      /logged in to MCP server 'tracker' \(authorization code \+ PKCE\); tokens kept in .*\.raf\/mcp-auth/,
    );

    const run = createMemoryIO({ cwd: dir });
    expect(await main(['run', 'agent.yaml', '-i', 'who', '--json'], run.io), run.err()).toBe(0);
    expect(run.lines().find((l) => l.type === 'tool-result')).toMatchObject({
      result: { ok: true, data: 'user-ada' },
    });

    const [file] = await readdir(join(dir, '.raf/mcp-auth'));
    const saved = JSON.parse(await readFile(join(dir, '.raf/mcp-auth', file!), 'utf8')) as {
      tokens: { access_token: string };
    };
    for (const text of [login.out(), login.err(), run.out(), run.err()])
      expect(text).not.toContain(saved.tokens.access_token);

    const logout = createMemoryIO({ cwd: dir });
    expect(await main(['mcp', 'logout', 'agent.yaml', 'tracker'], logout.io)).toBe(0);
    expect(await readdir(join(dir, '.raf/mcp-auth'))).toEqual([]);
  });
});
