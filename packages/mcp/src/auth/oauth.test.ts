import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpPlugin } from '../plugin/mcp-plugin.js';
import { buildTestAgent, collect, type TestAgent } from '../test-support/agents.js';
import { type OAuthTestServers, startOAuthServers } from '../test-support/oauth-server.js';
import { FileCredentialStore } from './credential-store.js';
import { loginMcpServer, logoutMcpServer } from './login.js';

let servers: OAuthTestServers | undefined;
const agents: TestAgent[] = [];
afterEach(async () => {
  for (const test of agents.splice(0)) await test.plugin.close();
  await servers?.close();
  servers = undefined;
});

/** Plays the browser: follows the authorization URL to the loopback redirect. */
async function browse(url: string): Promise<void> {
  const approve = await fetch(url, { redirect: 'manual' });
  expect(approve.status).toBe(302);
  const back = await fetch(approve.headers.get('location')!);
  expect(await back.text()).toContain('Logged in');
}

const whoami = { toolCalls: [{ id: 'call_who', name: 'whoami', arguments: {} }] };

async function agentWith(entry: Record<string, unknown>, credentials: FileCredentialStore, calls = 1) {
  const script = [...Array.from({ length: calls }, () => whoami).flatMap((c) => [c, { text: 'ok' }])];
  const logged: string[] = [];
  const plugin = mcpPlugin({ credentials, log: (line) => logged.push(line) });
  const test = await buildTestAgent({ tools: [entry] }, script, plugin);
  agents.push(test);
  return { ...test, logged };
}

const result = (updates: Awaited<ReturnType<typeof collect>>) =>
  updates.find((u) => u.type === 'tool-called') as
    | { result: { ok: boolean; data?: unknown; error?: string } }
    | undefined;

describe('OAuth 2.1 for HTTP servers', { timeout: 60_000 }, () => {
  it('logs in with code + PKCE and dynamic registration (redirect on 127.0.0.1), calls, refreshes after expiry', async () => {
    servers = await startOAuthServers();
    const dir = await mkdtemp(join(tmpdir(), 'raf-oauth-'));
    const credentials = new FileCredentialStore(join(dir, 'mcp-auth'));
    const entry = {
      kind: 'mcp',
      name: 'tracker',
      config: { url: servers.mcpUrl, connection: { kind: 'oauth', scopes: ['read'] } },
    };

    // Before a login: the build fails, saying what to do, after one try.
    await expect(buildTestAgent({ tools: [entry] }, [], mcpPlugin({ credentials }))).rejects.toThrow(
      /MCP server 'tracker' needs an OAuth login: run raf mcp login/,
    );

    const shown: string[] = [];
    const login = await loginMcpServer(entry, {
      baseDir: dir,
      credentials,
      onAuthorizationUrl: async (url) => {
        shown.push(url);
        await browse(url);
      },
    });
    expect(login).toEqual({ server: 'tracker', grant: 'authorization_code' });
    const authorizeUrl = new URL(shown[0]!);
    expect(authorizeUrl.origin).toBe(servers.issuer);
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizeUrl.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(authorizeUrl.searchParams.get('scope')).toBe('read');
    expect(servers.counts.authorization_code).toBe(1);

    // Kept in a folder only the user reads.
    const files = await readdir(join(dir, 'mcp-auth'));
    expect(files).toHaveLength(1);
    expect((await stat(join(dir, 'mcp-auth'))).mode & 0o777).toBe(0o700);
    expect((await stat(join(dir, 'mcp-auth', files[0]!))).mode & 0o777).toBe(0o600);

    const { agent, logged } = await agentWith(entry, credentials, 2);
    expect(result(await collect(agent, 'who'))?.result).toMatchObject({ ok: true, data: 'user-ada' });

    // The access token expires: the server answers 401, the client refreshes and the call goes through.
    servers.expireAccessTokens();
    expect(result(await collect(agent, 'who again'))?.result).toMatchObject({ ok: true, data: 'user-ada' });
    expect(servers.counts.refresh_token).toBe(1);
    expect(servers.seen).toEqual(['user-ada', 'user-ada']);
    // No token in any log line.
    const saved = JSON.parse(await readFile(join(dir, 'mcp-auth', files[0]!), 'utf8')) as {
      tokens: { access_token: string; refresh_token: string };
    };
    for (const line of logged) {
      expect(line).not.toContain(saved.tokens.access_token);
      expect(line).not.toContain(saved.tokens.refresh_token);
    }

    await logoutMcpServer(entry, { baseDir: dir, credentials });
    expect(await readdir(join(dir, 'mcp-auth'))).toEqual([]);
  });

  it('a wrong token (401) whose refresh fails asks for a login again, never a browser', async () => {
    servers = await startOAuthServers();
    const dir = await mkdtemp(join(tmpdir(), 'raf-oauth-'));
    const credentials = new FileCredentialStore(join(dir, 'mcp-auth'));
    const entry = {
      kind: 'mcp',
      name: 'tracker',
      config: { url: servers.mcpUrl, connection: { kind: 'oauth' } },
    };
    await loginMcpServer(entry, { baseDir: dir, credentials, onAuthorizationUrl: browse });
    const [file] = await readdir(join(dir, 'mcp-auth'));
    const path = join(dir, 'mcp-auth', file!);
    const record = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    await writeFile(
      path,
      JSON.stringify({
        ...record,
        tokens: { access_token: 'wrong', token_type: 'Bearer', refresh_token: 'wrong-too' },
      }),
    );
    await expect(buildTestAgent({ tools: [entry] }, [], mcpPlugin({ credentials }))).rejects.toThrow(
      /needs an OAuth login/,
    );
    expect(servers.counts.refused).toBeGreaterThan(0);
    expect(servers.counts.authorize).toBe(1); // only the first login's
  });

  it('client credentials for machines: a token without a browser, sent to the server', async () => {
    servers = await startOAuthServers();
    servers.addClient({ client_id: 'ci-bot', client_secret: 's3cret-value', redirect_uris: [] });
    const dir = await mkdtemp(join(tmpdir(), 'raf-oauth-'));
    const credentials = new FileCredentialStore(join(dir, 'mcp-auth'));
    const entry = {
      kind: 'mcp',
      name: 'tracker',
      config: {
        url: servers.mcpUrl,
        connection: {
          kind: 'oauth',
          grant: 'client_credentials',
          client_id: 'ci-bot',
          client_secret: 's3cret-value',
        },
      },
    };
    const { agent } = await agentWith(entry, credentials);
    expect(result(await collect(agent, 'who'))?.result).toMatchObject({ ok: true, data: 'machine-ci-bot' });
    expect(servers.counts.client_credentials).toBe(1);
    expect(servers.counts.authorize).toBe(0);
  });

  it('refuses OAuth on a stdio server and client_credentials without a secret', async () => {
    await expect(
      buildTestAgent({
        tools: [{ kind: 'mcp', name: 's', config: { command: 'node', connection: { kind: 'oauth' } } }],
      }),
    ).rejects.toThrow(/config.connection \(OAuth\) applies to a url/);
    await expect(
      buildTestAgent({
        tools: [
          {
            kind: 'mcp',
            name: 's',
            config: {
              url: 'http://127.0.0.1:9/mcp',
              connection: { kind: 'oauth', grant: 'client_credentials' },
            },
          },
        ],
      }),
    ).rejects.toThrow(/client_credentials needs client_id and client_secret/);
  });
});
