import { createCipheriv, createHash, randomBytes, scryptSync } from 'node:crypto';
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, type RafStore } from '@raf/framework';
import { afterEach, describe, expect, it } from 'vitest';
import { mcpPlugin } from '../plugin/mcp-plugin.js';
import { collect, testBuilder } from '../test-support/agents.js';
import { type OAuthTestServers, startOAuthServers } from '../test-support/oauth-server.js';
import { loginMcpServer, logoutMcpServer } from './login.js';
import { SecretCredentialStore } from './secret-credentials.js';

let servers: OAuthTestServers | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await servers?.close();
  servers = undefined;
});

async function browse(url: string): Promise<void> {
  const approve = await fetch(url, { redirect: 'manual' });
  await (await fetch(approve.headers.get('location')!)).text();
}

const KEY = 'a team key of at least some length';

/** An agent built the way the CLI builds one on `--store sqlite:…`: the store's secrets, no credentials option. */
async function agentOn(store: RafStore, entry: Record<string, unknown>, env: Record<string, string>) {
  const { builder, plugin } = testBuilder(
    { tools: [entry] },
    [{ toolCalls: [{ id: 'c1', name: 'whoami', arguments: {} }] }, { text: 'ok' }],
    mcpPlugin(),
  );
  closers.push(() => plugin.close());
  builder.withSecrets(store.secrets!).withEnvironment(env);
  return builder.build();
}

describe('OAuth tokens in the state store (sqlite:)', { timeout: 60_000 }, () => {
  it('login keeps them in the SQLite file (sealed, 0600, per tenant); a run on that store finds them; logout removes them', async () => {
    servers = await startOAuthServers();
    const dir = await mkdtemp(join(tmpdir(), 'raf-oauth-store-'));
    const path = join(dir, 'state.db');
    const store = await createStore(`sqlite:${path}`);
    closers.push(() => store.close());
    const entry = {
      kind: 'mcp',
      name: 'tracker',
      config: { url: servers.mcpUrl, connection: { kind: 'oauth', scopes: ['read'] } },
    };
    const ada = new SecretCredentialStore(store.secrets!, { tenant: 'ada', key: KEY });
    await loginMcpServer(entry, { baseDir: dir, credentials: ada, onAuthorizationUrl: browse });

    // In the store's file, nowhere else; readable by its owner only; no token in clear.
    expect((await readdir(dir)).filter((f) => !f.startsWith('state.db'))).toEqual([]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const saved = await ada.load('tracker', servers.mcpUrl);
    const access = saved?.tokens?.access_token ?? '';
    expect(access.length).toBeGreaterThan(8);
    for (const file of (await readdir(dir)).map((f) => join(dir, f)))
      expect((await readFile(file)).includes(Buffer.from(access))).toBe(false);

    const agent = await agentOn(store, entry, { RAF_TENANT: 'ada', RAF_SECRETS_KEY: KEY });
    const called = (await collect(agent, 'who')).find((u) => u.type === 'tool-called');
    expect(called).toMatchObject({ result: { ok: true, data: 'user-ada' } });

    // Another tenant of the same store has no login; a wrong key opens nothing.
    await expect(agentOn(store, entry, { RAF_TENANT: 'bob', RAF_SECRETS_KEY: KEY })).rejects.toThrow(
      /needs an OAuth login/,
    );
    const wrong = new SecretCredentialStore(store.secrets!, { tenant: 'ada', key: 'another key entirely' });
    await expect(wrong.load('tracker', servers.mcpUrl)).rejects.toThrow(
      /do not open: sealed with another RAF_SECRETS_KEY/,
    );
    const keyless = new SecretCredentialStore(store.secrets!, { tenant: 'ada' });
    await expect(keyless.load('tracker', servers.mcpUrl)).rejects.toThrow(/sealed with a key/);

    await logoutMcpServer(entry, { baseDir: dir, credentials: ada });
    expect(await ada.load('tracker', servers.mcpUrl)).toBeUndefined();
  });
});

// Someone with write access to the database (not the key) moves sealed records between rows:
// a record opens in its own row only (tenant × server × URL), never as another tenant's login.
describe('sealed OAuth records are bound to their row', () => {
  const URL = 'https://mcp.example.com/mcp';
  const rowOf = (tenant: string, server: string, url: string) =>
    createHash('sha256').update(`${tenant}\n${server}\n${url}`).digest('hex');
  const tokens = (access: string) => ({ url: URL, tokens: { access_token: access, token_type: 'bearer' } });

  async function sqliteStore() {
    const dir = await mkdtemp(join(tmpdir(), 'raf-oauth-bound-'));
    const store = await createStore(`sqlite:${join(dir, 'state.db')}`);
    closers.push(() => store.close());
    return store.secrets!;
  }

  it('a record copied to another tenant’s row does not open there, and is not used', async () => {
    const secrets = await sqliteStore();
    const ada = new SecretCredentialStore(secrets, { tenant: 'ada', key: KEY });
    const bob = new SecretCredentialStore(secrets, { tenant: 'bob', key: KEY });
    await ada.save('tracker', tokens('ada-token'));
    await bob.save('tracker', tokens('bob-token'));
    expect((await bob.load('tracker', URL))?.tokens?.access_token).toBe('bob-token');

    // Bob puts Ada's record in his own row: he would then act with Ada's token.
    const adas = await secrets.get('mcp-oauth', rowOf('ada', 'tracker', URL));
    await secrets.set('mcp-oauth', rowOf('bob', 'tracker', URL), adas!);
    await expect(bob.load('tracker', URL)).rejects.toThrow(/not this tenant's record for this server/);
    // Another server's row of the same tenant: refused too.
    await secrets.set('mcp-oauth', rowOf('ada', 'wiki', URL), adas!);
    await expect(ada.load('wiki', URL)).rejects.toThrow(/do not open/);
    // Ada's own row still opens.
    expect((await ada.load('tracker', URL))?.tokens?.access_token).toBe('ada-token');
  });

  it('a record sealed in the earlier, unbound format asks for a new login', async () => {
    const secrets = await sqliteStore();
    // The first format: AES-256-GCM without additional data, prefix `aes-256-gcm:`.
    const key = scryptSync(KEY, 'raf mcp-oauth v1', 32);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(JSON.stringify(tokens('old')), 'utf8'), cipher.final()]);
    const v1 = `aes-256-gcm:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
    await secrets.set('mcp-oauth', rowOf('ada', 'tracker', URL), v1);
    const ada = new SecretCredentialStore(secrets, { tenant: 'ada', key: KEY });
    await expect(ada.load('tracker', URL)).rejects.toThrow(/earlier version.*log in again/);
    // A new login replaces it.
    await ada.save('tracker', tokens('new'));
    expect((await ada.load('tracker', URL))?.tokens?.access_token).toBe('new');
  });
});
