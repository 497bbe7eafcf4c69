import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { getErrorMessage } from '@raf/core';
import { cappedFetch, type SdkClient } from './sdk.js';

// The 2026-07-28 revision (stateless, `server/discover`, multi-round-trip requests,
// `subscriptions/listen`) is spoken by the SDK v2 only. A server that refuses the 2025 handshake
// with -32022 (unsupported protocol version), over HTTP or stdio, is reached through it: the v2
// client negotiates (`versionNegotiation: auto`) and is used through the same methods as the 1.x
// client. Loaded only when such a server is met.

type ModernModule = typeof import('@modelcontextprotocol/client');
type ModernClient = InstanceType<ModernModule['Client']>;

/** What the connection does with what the server sends (the same for both SDKs). */
export interface ClientEvents {
  elicit(params: ElicitRequest['params']): Promise<ElicitResult>;
  toolsChanged(): void;
  contentChanged(): void;
  resourceUpdated(uri: string): void;
  error(error: unknown): void;
  closed(): void;
}

/** The 2025 handshake was refused as another protocol revision (`-32022`, HTTP 400). */
export function unsupportedRevision(error: unknown): boolean {
  return /-32022|unsupported protocol version/i.test(getErrorMessage(error));
}

/** The client's capabilities, for both SDKs: questions reach the user of the running call. */
export const CLIENT_CAPABILITIES = { elicitation: { form: {}, url: {} } } as const;

let modern: Promise<ModernModule> | undefined;

/** Where the v2 client goes: a streamable HTTP endpoint, or a process it starts (stdio). */
export type ModernTarget =
  | {
      kind: 'http';
      url: URL;
      headers: Record<string, string>;
      authProvider: OAuthClientProvider | undefined;
    }
  | {
      kind: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string> | undefined;
      cwd: string | undefined;
      onStderr: (text: string) => void;
    };

/**
 * Connects with the SDK v2's client, over streamable HTTP or stdio. The returned object has the
 * 1.x client's methods the connection uses (`listTools`, `readResource`, `getServerCapabilities`,
 * …); `callTool` takes its options second here (see `callModern`). `pid` is the stdio server's.
 */
export async function openModernClient(
  target: ModernTarget,
  options: {
    clientInfo: { name: string; version: string };
    timeoutMs: number;
    events: (client: object) => ClientEvents;
  },
): Promise<{ client: SdkClient; pid: number | undefined }> {
  modern ??= import('@modelcontextprotocol/client');
  const sdk = await modern;
  const client = new sdk.Client(options.clientInfo, {
    capabilities: CLIENT_CAPABILITIES,
    versionNegotiation: { mode: 'auto' },
  });
  const events = options.events(client);
  client.setRequestHandler(
    'elicitation/create',
    (request) => events.elicit(request.params as ElicitRequest['params']) as never,
  );
  client.setNotificationHandler('notifications/tools/list_changed', () => events.toolsChanged());
  client.setNotificationHandler('notifications/resources/list_changed', () => events.contentChanged());
  client.setNotificationHandler('notifications/prompts/list_changed', () => events.contentChanged());
  client.setNotificationHandler('notifications/resources/updated', (notification) =>
    events.resourceUpdated(notification.params.uri),
  );
  client.onerror = (error) => events.error(error);
  client.onclose = () => events.closed();
  let transport: { pid?: number | null } & Parameters<typeof client.connect>[0];
  if (target.kind === 'http') {
    transport = new sdk.StreamableHTTPClientTransport(target.url, {
      requestInit: { headers: target.headers },
      fetch: cappedFetch(),
      ...(target.authProvider && { authProvider: target.authProvider as never }),
    });
  } else {
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const stdio = new StdioClientTransport({
      command: target.command,
      args: target.args,
      ...(target.env && { env: target.env }),
      ...(target.cwd && { cwd: target.cwd }),
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', (chunk: Buffer) => target.onStderr(chunk.toString('utf8')));
    transport = stdio;
  }
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
  // The two clients share the methods the connection calls; the SDKs' types differ in detail.
  return { client: client as unknown as SdkClient, pid: transport.pid ?? undefined };
}

/** An open `subscriptions/listen` stream (2026-07-28): `closed` settles when it ends, for any reason. */
export interface ModernListen {
  close(): Promise<void>;
  closed: Promise<'local' | 'graceful' | 'remote'>;
}

/**
 * `subscriptions/listen` for these resources (and the list changes): the 2026-07-28 replacement
 * of `resources/subscribe`; the changes arrive through the handlers `openModernClient` set.
 */
export function listenModern(
  client: SdkClient,
  uris: readonly string[],
  timeoutMs: number,
): Promise<ModernListen> {
  return (client as unknown as ModernClient).listen(
    {
      toolsListChanged: true,
      resourcesListChanged: true,
      promptsListChanged: true,
      resourceSubscriptions: [...uris],
    },
    { timeout: timeoutMs },
  );
}

/** `tools/call` on a v2 client: its options are the second argument (the 1.x client's third). */
export function callModern(
  client: SdkClient,
  params: { name: string; arguments: Record<string, unknown> },
  options: object,
): Promise<unknown> {
  return (client as unknown as ModernClient).callTool(params, options as never);
}
