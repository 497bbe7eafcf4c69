// A small OAuth 2.1 authorization server and an MCP server it protects, both on 127.0.0.1 in the
// test's own process: discovery (RFC 9728, RFC 8414), dynamic registration (RFC 7591), the
// authorization code grant with PKCE (S256, the browser played by the test: /authorize approves
// at once), refresh tokens (rotated), client credentials. The MCP server is the official SDK's
// (stateless streamable HTTP), its `whoami` tool answers with the token's subject.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

interface Client {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
}
interface Grant {
  clientId: string;
  subject: string;
  expiresAt: number;
}

const id = () => randomBytes(12).toString('base64url');

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

export interface OAuthTestServers {
  /** The protected MCP server's URL (`…/mcp`). */
  mcpUrl: string;
  issuer: string;
  /** Token requests by grant type; `/authorize` visits; bearer tokens the MCP server refused. */
  counts: {
    authorization_code: number;
    refresh_token: number;
    client_credentials: number;
    authorize: number;
    refused: number;
  };
  /** Every access token issued so far ends now (the MCP server answers 401 to them). */
  expireAccessTokens(): void;
  /** A client registered beforehand (for client_credentials, or a static client_id). */
  addClient(client: Client): void;
  /** The subjects the MCP server saw, in order. */
  seen: string[];
  close(): Promise<void>;
}

export async function startOAuthServers(options: { accessTtlSecs?: number } = {}): Promise<OAuthTestServers> {
  const clients = new Map<string, Client>();
  const codes = new Map<
    string,
    { clientId: string; challenge: string; redirectUri: string; subject: string }
  >();
  const access = new Map<string, Grant>();
  const refresh = new Map<string, { clientId: string; subject: string }>();
  const counts = { authorization_code: 0, refresh_token: 0, client_credentials: 0, authorize: 0, refused: 0 };
  const seen: string[] = [];
  const ttl = options.accessTtlSecs ?? 3600;
  let issuer = '';
  let mcpBase = '';

  const issue = (clientId: string, subject: string, withRefresh: boolean) => {
    const token = `at-${id()}`;
    access.set(token, { clientId, subject, expiresAt: Date.now() + ttl * 1000 });
    const out: Record<string, unknown> = { access_token: token, token_type: 'Bearer', expires_in: ttl };
    if (withRefresh) {
      const r = `rt-${id()}`;
      refresh.set(r, { clientId, subject });
      out.refresh_token = r;
    }
    return out;
  };

  const authenticate = (req: IncomingMessage, form: URLSearchParams): Client | undefined => {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    let clientId = form.get('client_id') ?? undefined;
    let secret = form.get('client_secret') ?? undefined;
    if (basic) {
      const [user, pass] = Buffer.from(basic, 'base64').toString('utf8').split(':');
      clientId = decodeURIComponent(user ?? '');
      secret = decodeURIComponent(pass ?? '');
    }
    const client = clientId ? clients.get(clientId) : undefined;
    if (!client) return undefined;
    if (client.client_secret !== undefined && client.client_secret !== secret) return undefined;
    return client;
  };

  const auth = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (url.pathname === '/.well-known/oauth-authorization-server')
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      });
    if (url.pathname === '/register' && req.method === 'POST') {
      const metadata = JSON.parse(await body(req)) as { redirect_uris?: string[] };
      const client: Client = { client_id: `dyn-${id()}`, redirect_uris: metadata.redirect_uris ?? [] };
      clients.set(client.client_id, client);
      return json(res, 201, { ...metadata, ...client, client_id_issued_at: Math.floor(Date.now() / 1000) });
    }
    if (url.pathname === '/authorize') {
      counts.authorize++;
      const q = url.searchParams;
      const client = clients.get(q.get('client_id') ?? '');
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!client?.redirect_uris.includes(redirectUri)) return json(res, 400, { error: 'invalid_request' });
      if (q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
        return json(res, 400, { error: 'invalid_request', error_description: 'PKCE S256 required' });
      const code = `code-${id()}`;
      codes.set(code, {
        clientId: client.client_id,
        challenge: q.get('code_challenge')!,
        redirectUri,
        subject: 'user-ada',
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      res.writeHead(302, { location: back.href }).end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      const form = new URLSearchParams(await body(req));
      const client = authenticate(req, form);
      if (!client) return json(res, 401, { error: 'invalid_client' });
      const grant = form.get('grant_type');
      if (grant === 'authorization_code') {
        const code = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (
          !code ||
          code.clientId !== client.client_id ||
          code.challenge !== challenge ||
          code.redirectUri !== form.get('redirect_uri')
        )
          return json(res, 400, { error: 'invalid_grant' });
        counts.authorization_code++;
        return json(res, 200, issue(client.client_id, code.subject, true));
      }
      if (grant === 'refresh_token') {
        const old = refresh.get(form.get('refresh_token') ?? '');
        if (!old || old.clientId !== client.client_id) return json(res, 400, { error: 'invalid_grant' });
        refresh.delete(form.get('refresh_token') ?? '');
        counts.refresh_token++;
        return json(res, 200, issue(client.client_id, old.subject, true));
      }
      if (grant === 'client_credentials' && client.client_secret !== undefined) {
        counts.client_credentials++;
        return json(res, 200, issue(client.client_id, `machine-${client.client_id}`, false));
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    json(res, 404, { error: 'not_found' });
  });
  issuer = `http://127.0.0.1:${await listen(auth)}`;

  const mcp = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', mcpBase);
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource'))
      return json(res, 200, { resource: `${mcpBase}/mcp`, authorization_servers: [issuer] });
    if (url.pathname !== '/mcp') return json(res, 404, { error: 'not_found' });
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const grant = token ? access.get(token) : undefined;
    if (!grant || grant.expiresAt <= Date.now()) {
      counts.refused++;
      res
        .writeHead(401, {
          'www-authenticate': `Bearer error="invalid_token", resource_metadata="${mcpBase}/.well-known/oauth-protected-resource/mcp"`,
          'content-type': 'application/json',
        })
        .end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    const server = new McpServer({ name: 'oauth-test', version: '1.0.0' });
    server.registerTool('whoami', { description: "The token's subject" }, () => {
      seen.push(grant.subject);
      return { content: [{ type: 'text', text: grant.subject }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    const text = req.method === 'POST' ? await body(req) : '';
    await transport.handleRequest(req, res, text ? JSON.parse(text) : undefined);
  });
  mcpBase = `http://127.0.0.1:${await listen(mcp)}`;

  return {
    mcpUrl: `${mcpBase}/mcp`,
    issuer,
    counts,
    seen,
    expireAccessTokens: () => {
      for (const grant of access.values()) grant.expiresAt = 0;
    },
    addClient: (client) => clients.set(client.client_id, client),
    close: async () => {
      for (const server of [auth, mcp]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
