import { createServer, type Server } from 'node:http';
import { CancelledError, ConfigError, type Declaration } from '@raf/core';
import { parseMcpEntry } from '../config/mcp-config.js';
import { serverSpec } from '../config/server-spec.js';
import { McpServerError } from '../errors.js';
import { credentialStoreFor, type McpCredentialStore } from './credential-store.js';
import { RafOAuthProvider } from './oauth-provider.js';

export interface McpLoginOptions {
  /** Where tokens are kept (default: `credentialStoreFor(RAF_STORE, cwd)`). */
  credentials?: McpCredentialStore;
  /** The agent file's folder. */
  baseDir: string;
  /** Shown to the user: open it in a browser (`raf mcp login` prints it). */
  onAuthorizationUrl: (url: string) => void | Promise<void>;
  signal?: AbortSignal;
  /** How long to wait for the browser's redirect (default 5 min). */
  timeoutMs?: number;
}

const PAGE =
  '<!doctype html><meta charset="utf-8"><title>raf</title><p>Logged in: you can close this tab and go back to the terminal.</p>';

/** The provider and URL of a `kind: mcp` entry with `connection: { kind: oauth }`. */
function oauthOf(entry: Declaration, baseDir: string, credentials: McpCredentialStore) {
  const label = `mcp server '${entry.name ?? '?'}'`;
  const config = parseMcpEntry(entry, 'tool', label);
  const spec = serverSpec(config, entry.name, baseDir);
  if (spec.transport === 'stdio' || !spec.oauth)
    throw new ConfigError(
      `${label}: has no connection: { kind: oauth } (only an HTTP server with OAuth logs in)`,
    );
  return {
    spec,
    oauth: spec.oauth,
    provider: new RafOAuthProvider(spec.name, spec.url, spec.oauth, credentials),
  };
}

/** Listens on 127.0.0.1 for the one redirect of this login; resolves with its code. */
async function listenForRedirect(port: number): Promise<{
  server: Server;
  uri: string;
  redirect: Promise<URLSearchParams>;
}> {
  let deliver: (query: URLSearchParams) => void = () => undefined;
  const redirect = new Promise<URLSearchParams>((resolve) => {
    deliver = resolve;
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    deliver(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return { server, uri: `http://127.0.0.1:${bound}/callback`, redirect };
}

/**
 * `raf mcp login`: the OAuth flow for one server entry, its tokens saved in the store. The
 * authorization code grant (PKCE, dynamic client registration when no `client_id` is given)
 * hands the authorization URL to `onAuthorizationUrl` and waits for the redirect on 127.0.0.1;
 * `client_credentials` just fetches a token. Tokens are never printed.
 */
export async function loginMcpServer(
  entry: Declaration,
  options: McpLoginOptions,
): Promise<{ server: string; grant: 'authorization_code' | 'client_credentials' }> {
  const credentials = options.credentials ?? credentialStoreFor(process.env.RAF_STORE, process.cwd());
  const { spec, oauth, provider } = oauthOf(entry, options.baseDir, credentials);
  const { auth } = await import('@modelcontextprotocol/sdk/client/auth.js');
  await provider.load();
  await provider.dropTokens();
  const serverUrl = spec.url;
  if (oauth.grant === 'client_credentials') {
    await auth(provider, { serverUrl, ...(oauth.scope && { scope: oauth.scope }) });
    return { server: spec.name, grant: 'client_credentials' };
  }
  const listener = await listenForRedirect(oauth.redirectPort ?? 0);
  let timer: NodeJS.Timeout | undefined;
  try {
    provider.redirectUri = listener.uri;
    provider.authorize = (url) => options.onAuthorizationUrl(url.href);
    const first = await auth(provider, { serverUrl, ...(oauth.scope && { scope: oauth.scope }) });
    if (first === 'AUTHORIZED') return { server: spec.name, grant: 'authorization_code' };
    const waited = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new McpServerError(
              spec.name,
              `no redirect came back within ${(options.timeoutMs ?? 300_000) / 1000} s; run raf mcp login again`,
            ),
          ),
        options.timeoutMs ?? 300_000,
      );
      options.signal?.addEventListener('abort', () => reject(new CancelledError()), { once: true });
    });
    const query = await Promise.race([listener.redirect, waited]);
    const error = query.get('error');
    if (error)
      throw new McpServerError(
        spec.name,
        `the authorization server refused the login: ${error}${query.get('error_description') ? ` (${query.get('error_description')})` : ''}`,
      );
    // A redirect this login did not start (another page, a forged link) carries another state.
    if (!provider.pendingState || query.get('state') !== provider.pendingState)
      throw new McpServerError(
        spec.name,
        'the redirect carried the wrong state: not the login raf started; nothing was saved',
      );
    const code = query.get('code');
    if (!code) throw new McpServerError(spec.name, 'the redirect carried no authorization code');
    await auth(provider, { serverUrl, authorizationCode: code, ...(oauth.scope && { scope: oauth.scope }) });
    return { server: spec.name, grant: 'authorization_code' };
  } finally {
    clearTimeout(timer);
    listener.server.close();
    listener.server.closeAllConnections?.();
  }
}

/** `raf mcp logout`: forgets the server's tokens and registered client. */
export async function logoutMcpServer(
  entry: Declaration,
  options: { baseDir: string; credentials?: McpCredentialStore },
): Promise<{ server: string }> {
  const credentials = options.credentials ?? credentialStoreFor(process.env.RAF_STORE, process.cwd());
  const { spec } = oauthOf(entry, options.baseDir, credentials);
  await credentials.delete(spec.name, spec.url);
  return { server: spec.name };
}
