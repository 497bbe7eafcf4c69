import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type {
  CallToolResult,
  ElicitRequest,
  ElicitResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { CancelledError, getErrorMessage, type InputAnswer, type InputRequest } from '@raf/core';
import type { McpCredentialStore } from '../auth/credential-store.js';
import { McpLoginNeeded, RafOAuthProvider } from '../auth/oauth-provider.js';
import type { McpServerSpec } from '../config/server-spec.js';
import { McpServerError } from '../errors.js';
import { trackChild, untrackChild } from './child-processes.js';
import { answerElicitation } from './elicitation.js';
import {
  abortable,
  CONNECTION_CLOSED,
  describeFailure,
  errorCode,
  httpStatus,
  isMcpError,
  malformedAnswer,
  permanent,
  REQUEST_TIMEOUT,
  sessionExpired,
} from './failures.js';
import { callableTools, type ListPage, listAll } from './list-pages.js';
import {
  CLIENT_CAPABILITIES,
  type ClientEvents,
  callModern,
  openModernClient,
  unsupportedRevision,
} from './modern-client.js';
import { dieWithParent } from './parent-death.js';
import { RequestSignal } from './request-signal.js';
import { ResourceListener } from './resource-listener.js';
import {
  cappedFetch,
  loadSdk,
  loadSseTransport,
  loadStdioTransport,
  loadStreamableHttpTransport,
  type Sdk,
  type SdkClient,
} from './sdk.js';
import { changedSince, commandFile, fingerprintOf } from './server-fingerprint.js';
import type { ServerLog } from './server-log.js';

export interface McpConnectionOptions {
  log: ServerLog;
  /** Where an OAuth server's tokens are kept (`connection: { kind: oauth }`). */
  credentials?: McpCredentialStore;
  /** Starting the server and the handshake, per try (default 30 s). */
  connectTimeoutMs?: number;
  /** Tries to (re)connect, with backoff between them (default 3). */
  reconnectAttempts?: number;
  clientInfo?: { name: string; version: string };
}

export interface McpCallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  onProgress?: (message: string) => void;
  /** Who answers the server's elicitations while this call runs (the run's user). */
  requestInput?: (request: InputRequest) => Promise<InputAnswer>;
}

const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const LIST_TIMEOUT_MS = 30_000;
const STDIO_EXIT_GRACE_MS = 500;

// Not unref()'d: between tries nothing else may hold the event loop (the server exited), and an
// empty loop ended `raf validate` with exit 13 and no word (issue 26). Every wait here is bounded.
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One MCP server, through the official SDK client: started (stdio) or reached (streamable HTTP,
 * falling back to SSE) on first use, reconnected when the process exits or the HTTP session
 * expires (with backoff, a bounded number of tries), its tool list cached and refreshed on
 * `notifications/tools/list_changed`.
 */
export class McpConnection {
  readonly name: string;
  private client: SdkClient | undefined;
  private opening: Promise<SdkClient> | undefined;
  private closed = false;
  private sdk: Sdk | undefined;
  private toolList: Tool[] = [];
  private listed = false;
  private version = 0;
  private contentVersionNumber = 0;
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;
  private readonly listeners = new Set<() => void>();
  private pid: number | undefined;
  /** For `http`: the transport that worked, kept for reconnects. */
  private httpMode: 'streamable-http' | 'sse' | undefined;
  private capabilities: ServerCapabilities | undefined;
  private serverInstructions: string | undefined;
  /** The files a stdio start runs, as they were at the first start (the build). */
  private startFiles: Map<string, string> | undefined;
  /** Set when a restart was refused: every later call fails with it, nothing is started. */
  private refusal: McpServerError | undefined;
  private oauth: RafOAuthProvider | undefined;
  /** Set once the server refused the 2025 handshake: reconnects go straight to the SDK v2. */
  private revision: 'legacy' | 'modern' = 'legacy';
  /** Resources a context follows (`subscribe:`), and how often each changed. */
  private readonly subscriptions = new Set<string>();
  private readonly resourceChanges = new Map<string, number>();
  /** 2026-07-28: the `subscriptions/listen` stream of the followed resources. */
  private readonly listener: ResourceListener;
  private calls = 0;
  /** The users of the calls in flight: a server's elicitation goes to the latest one's. */
  private readonly askers: ((request: InputRequest) => Promise<InputAnswer>)[] = [];

  constructor(
    readonly spec: McpServerSpec,
    private readonly options: McpConnectionOptions,
  ) {
    this.name = spec.name;
    this.listener = new ResourceListener(
      options.log,
      () => {
        if (!this.closed) this.contentVersionNumber++;
      },
      LIST_TIMEOUT_MS,
    );
    if (spec.transport !== 'http') this.httpMode = spec.transport === 'stdio' ? undefined : spec.transport;
  }

  /** The server's tools as last listed (callable ones only). */
  get tools(): readonly Tool[] {
    return this.toolList;
  }

  /** Grows each time the tool list changes. */
  get toolsVersion(): number {
    return this.version;
  }

  /** Grows when the server's resources or prompts may have changed (a notification, a reconnect). */
  get contentVersion(): number {
    return this.contentVersionNumber;
  }

  get instructions(): string | undefined {
    return this.serverInstructions;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.capabilities;
  }

  get connected(): boolean {
    return this.client !== undefined;
  }

  /** The stdio server's process id while it runs. */
  get processId(): number | undefined {
    return this.client ? this.pid : undefined;
  }

  /** `stdio: node` / `http: https://host/path` (no query, no credentials: those may be secrets). */
  get endpoint(): string {
    const { spec } = this;
    if (spec.transport === 'stdio') return `stdio: ${spec.command.split('/').pop()}`;
    const url = new URL(spec.url);
    return `${this.httpMode ?? 'http'}: ${url.origin}${url.pathname}`;
  }

  /** Called after the tool list changed (a notification, or a reconnect that found another list). */
  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Connects if needed and lists the tools. */
  async connect(signal?: AbortSignal): Promise<void> {
    await this.ensureClient(signal);
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult> {
    const { requestInput } = options;
    this.calls++;
    if (requestInput) this.askers.push(requestInput);
    try {
      return await this.callToolOnce(name, args, options);
    } finally {
      if (requestInput) this.askers.splice(this.askers.lastIndexOf(requestInput), 1);
    }
  }

  private callToolOnce(
    name: string,
    args: Record<string, unknown>,
    options: McpCallOptions,
  ): Promise<CallToolResult> {
    const { onProgress } = options;
    return this.request(
      name,
      (client, signal) => {
        const request: RequestOptions = { timeout: options.timeoutMs };
        if (signal) request.signal = signal;
        if (onProgress) {
          request.onprogress = (p) =>
            onProgress(p.message ?? `${p.progress}${p.total !== undefined ? `/${p.total}` : ''}`);
        }
        return (
          this.revision === 'modern'
            ? callModern(client, { name, arguments: args }, request)
            : client.callTool({ name, arguments: args }, undefined, request)
        ) as Promise<CallToolResult>;
      },
      options,
    );
  }

  async listResources(
    signal?: AbortSignal,
  ): Promise<{ resources: Resource[]; templates: ResourceTemplate[] }> {
    return this.request(
      'resources/list',
      async (client) => {
        if (!client.getServerCapabilities()?.resources) return { resources: [], templates: [] };
        const resources = await this.all((cursor) =>
          client
            .listResources(cursor ? { cursor } : undefined, { timeout: LIST_TIMEOUT_MS })
            .then((r) => ({ items: r.resources, next: r.nextCursor })),
        );
        const templates = await this.all((cursor) =>
          client
            .listResourceTemplates(cursor ? { cursor } : undefined, { timeout: LIST_TIMEOUT_MS })
            .then((r) => ({ items: r.resourceTemplates, next: r.nextCursor })),
        ).catch(() => [] as ResourceTemplate[]);
        return { resources, templates };
      },
      { timeoutMs: LIST_TIMEOUT_MS, ...(signal && { signal }) },
    );
  }

  async readResource(
    uri: string,
    options: { signal?: AbortSignal; timeoutMs: number },
  ): Promise<ReadResourceResult> {
    return this.request(
      `resources/read ${uri}`,
      (client, signal) =>
        client.readResource({ uri }, { timeout: options.timeoutMs, ...(signal && { signal }) }),
      options,
    );
  }

  async listPrompts(signal?: AbortSignal): Promise<Prompt[]> {
    return this.request(
      'prompts/list',
      (client) =>
        client.getServerCapabilities()?.prompts
          ? this.all((cursor) =>
              client
                .listPrompts(cursor ? { cursor } : undefined, { timeout: LIST_TIMEOUT_MS })
                .then((r) => ({ items: r.prompts, next: r.nextCursor })),
            )
          : Promise.resolve([]),
      { timeoutMs: LIST_TIMEOUT_MS, ...(signal && { signal }) },
    );
  }

  async getPrompt(
    name: string,
    args: Record<string, string>,
    options: { signal?: AbortSignal; timeoutMs: number },
  ): Promise<GetPromptResult> {
    return this.request(
      `prompts/get ${name}`,
      (client, signal) =>
        client.getPrompt(
          { name, arguments: args },
          { timeout: options.timeoutMs, ...(signal && { signal }) },
        ),
      options,
    );
  }

  /**
   * Follows these resources (`resources/subscribe`, when the server offers it; subscribed again
   * after a reconnect): `resourceVersion(uri)` grows on each `notifications/resources/updated`.
   */
  async subscribe(uris: readonly string[], signal?: AbortSignal): Promise<void> {
    const fresh = uris.filter((uri) => !this.subscriptions.has(uri));
    for (const uri of fresh) this.subscriptions.add(uri);
    const client = await this.ensureClient(signal);
    if (this.revision === 'modern') {
      // One stream for all: opened again only when it ended or a resource is new to it.
      if (!this.listener.covers(uris)) await this.subscribeOn(client, fresh);
      return;
    }
    await this.subscribeOn(client, fresh);
  }

  /**
   * Whether the server pushes changes (else a follower reads the resource again on every run):
   * a 2026-07-28 server only while the listen stream is open (what changed while it was not is
   * unknown).
   */
  get pushesResourceChanges(): boolean {
    if (!this.capabilities?.resources?.subscribe) return false;
    return this.revision === 'modern' ? this.listener.listening : true;
  }

  /**
   * Grows each time the server says the resource changed, on each reconnect, and with each tool
   * call (over HTTP the change notification travels on another stream than the call's answer,
   * and may come after it: a resource the agent itself changed is read again anyway).
   */
  resourceVersion(uri: string): number {
    return (this.resourceChanges.get(uri) ?? 0) + this.contentVersionNumber + this.calls;
  }

  private async subscribeOn(client: SdkClient, uris: readonly string[]): Promise<void> {
    if (!client.getServerCapabilities()?.resources?.subscribe) return;
    if (this.revision === 'modern') return this.listener.listen(client, this.subscriptions);
    for (const uri of uris) {
      try {
        await client.subscribeResource({ uri }, { timeout: LIST_TIMEOUT_MS });
      } catch (error) {
        this.options.log.event(`resources/subscribe ${uri} failed: ${getErrorMessage(error)}`);
      }
    }
  }

  /** Stops the server (stdio) or ends the session (HTTP); later calls fail. Idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const opening = this.opening;
    if (opening) await opening.catch(() => undefined);
    const client = this.client;
    this.client = undefined;
    await this.listener.close();
    if (!client) return;
    this.options.log.event('closing');
    const transport = client.transport as { terminateSession?: () => Promise<void> } | undefined;
    // At most 1 s for the server to end the session; the timer must not keep the process up after.
    let giveUp: NodeJS.Timeout | undefined;
    await Promise.race([
      transport?.terminateSession?.().catch(() => undefined),
      new Promise((resolve) => {
        giveUp = setTimeout(resolve, 1000);
      }),
    ]);
    clearTimeout(giveUp);
    // The SDK ends the server's stdin and waits 2 s before SIGTERM; many servers never read EOF,
    // and every CLI command would pay that wait. The spec's "reasonable time" here is 0.5 s.
    const pid = this.spec.transport === 'stdio' ? this.pid : undefined;
    const terminate =
      pid === undefined
        ? undefined
        : setTimeout(() => {
            try {
              process.kill(pid, 'SIGTERM');
            } catch {
              // already gone
            }
          }, STDIO_EXIT_GRACE_MS);
    await client.close().catch(() => undefined);
    clearTimeout(terminate);
    if (pid !== undefined) untrackChild(pid);
  }

  /** One request on a live client: reconnects first if needed; a request the server never saw because its session expired is sent again once, on a new session. */
  private async request<T>(
    what: string,
    send: (client: SdkClient, signal: AbortSignal | undefined) => Promise<T>,
    options: { signal?: AbortSignal; timeoutMs: number },
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const client = this.client ?? (await this.ensureClient(options.signal));
      const own = options.signal ? new RequestSignal(options.signal) : undefined;
      try {
        return await send(client, own as AbortSignal | undefined);
      } catch (error) {
        if (options.signal?.aborted) throw new CancelledError();
        if (attempt === 0 && sessionExpired(error)) {
          this.options.log.event(`session expired (${what}); starting a new one`);
          this.drop(client);
          continue;
        }
        throw this.failure(client, error, what, options.timeoutMs);
      } finally {
        own?.release();
      }
    }
  }

  private failure(client: SdkClient, error: unknown, what: string, timeoutMs: number): McpServerError {
    const described = describeFailure(this.name, this.endpoint, this.options.log, error, what, timeoutMs);
    if (described.lost) this.drop(client);
    return described.error;
  }

  /** Forgets a client whose connection is gone; the next request opens a new one. */
  private drop(client: SdkClient): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.pid !== undefined) untrackChild(this.pid);
    void client.close().catch(() => undefined);
  }

  private ensureClient(signal: AbortSignal | undefined): Promise<SdkClient> {
    if (this.closed)
      return Promise.reject(new McpServerError(this.name, `MCP server '${this.name}' was closed`));
    if (this.client) return Promise.resolve(this.client);
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return abortable(this.opening, signal);
  }

  /**
   * A stdio server is started again only as it was built: if its command or script changed since
   * (issue 26: the model rewrote `server.mjs`, crashed the server, and the restart ran its code
   * outside any sandbox), the restart is refused, for good.
   */
  private async checkStartFiles(): Promise<void> {
    const { spec } = this;
    if (spec.transport !== 'stdio') return;
    if (!this.startFiles) {
      this.startFiles = await fingerprintOf(spec);
      return;
    }
    const changed = await changedSince(this.startFiles);
    if (changed.length === 0) return;
    this.refusal = new McpServerError(
      this.name,
      `MCP server '${this.name}' is not restarted: ${changed.map((f) => `'${f}'`).join(', ')} changed since the agent was built (what would run is not what was configured); check the change and start raf again if it is yours`,
    );
    this.options.log.event(`restart refused: ${changed.join(', ')} changed since the build`);
    throw this.refusal;
  }

  private async open(): Promise<SdkClient> {
    if (this.refusal) throw this.refusal;
    await this.checkStartFiles();
    const attempts = this.options.reconnectAttempts ?? 3;
    const verb = this.listed ? 'reconnect to' : 'start';
    let last: unknown;
    let tries = 0;
    for (; tries < attempts && !this.closed; tries++) {
      if (tries > 0) await sleep(Math.min(200 * 2 ** (tries - 1), 5000));
      try {
        const client = await this.openOnce();
        if (this.closed) {
          await client.close().catch(() => undefined);
          break;
        }
        this.client = client;
        if (this.listed) this.contentVersionNumber++;
        await this.refreshTools(client);
        if (this.subscriptions.size > 0) await this.subscribeOn(client, [...this.subscriptions]);
        this.options.log.event(`connected (${this.endpoint}), ${this.toolList.length} tools`);
        return client;
      } catch (error) {
        last = error;
        this.options.log.event(`${verb} failed (try ${tries + 1} of ${attempts}): ${getErrorMessage(error)}`);
        if (this.client) this.drop(this.client);
        // A server that never answered the handshake will not answer the next try either.
        if (permanent(error) || (isMcpError(error) && errorCode(error) === REQUEST_TIMEOUT)) {
          tries++;
          break;
        }
      }
    }
    if (this.closed) throw new McpServerError(this.name, `MCP server '${this.name}' was closed`);
    const status = httpStatus(last);
    const exited =
      isMcpError(last) && errorCode(last) === CONNECTION_CLOSED && this.spec.transport === 'stdio';
    const silent = isMcpError(last) && errorCode(last) === REQUEST_TIMEOUT;
    const over = this.options.log.oversizedMessage();
    const reason = status
      ? `HTTP ${status}`
      : exited && over !== undefined
        ? `the server sent a message over ${Math.round(over / 1024 / 1024)} MiB during the handshake, more than a stdio message may be`
        : exited
          ? 'the server exited during the handshake'
          : silent
            ? `the server did not answer the MCP handshake (initialize) within ${(this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS) / 1000} s`
            : this.options.log.redact(malformedAnswer(last) ?? getErrorMessage(last));
    throw new McpServerError(
      this.name,
      `cannot ${verb} MCP server '${this.name}' (${this.endpoint}) after ${tries} ${tries === 1 ? 'try' : 'tries'}: ${reason}${this.options.log.recentStderr()}`,
      { cause: last },
    );
  }

  /** What a client's server sends, handled alike for both SDKs (`client` is the one it came on). */
  private events(client: object): ClientEvents {
    const current = () => this.client === (client as SdkClient);
    return {
      elicit: (params) => this.elicit(params),
      toolsChanged: () => {
        if (current()) void this.refreshSoon(client as SdkClient);
      },
      contentChanged: () => {
        if (current()) this.contentVersionNumber++;
      },
      resourceUpdated: (uri) => {
        if (!current() || !this.subscriptions.has(uri)) return;
        this.resourceChanges.set(uri, (this.resourceChanges.get(uri) ?? 0) + 1);
        this.options.log.event(`resource updated: ${uri}`);
      },
      error: (error) => this.options.log.transportError(getErrorMessage(error)),
      closed: () => {
        if (!current()) return;
        this.client = undefined;
        if (this.pid !== undefined) untrackChild(this.pid);
        this.options.log.event(this.closed ? 'closed' : 'connection lost; the next call reconnects');
      },
    };
  }

  private newClient(sdk: Sdk): SdkClient {
    const client = new sdk.Client(this.options.clientInfo ?? { name: 'raf', version: '0.1.0' }, {
      // Questions from the server reach the user of the call that is running (SPEC §14.4).
      capabilities: CLIENT_CAPABILITIES,
    });
    const events = this.events(client);
    client.setRequestHandler(sdk.types.ElicitRequestSchema, (request) => events.elicit(request.params));
    client.setNotificationHandler(sdk.types.ToolListChangedNotificationSchema, () => events.toolsChanged());
    client.setNotificationHandler(sdk.types.ResourceListChangedNotificationSchema, () =>
      events.contentChanged(),
    );
    client.setNotificationHandler(sdk.types.PromptListChangedNotificationSchema, () =>
      events.contentChanged(),
    );
    client.setNotificationHandler(sdk.types.ResourceUpdatedNotificationSchema, (notification) =>
      events.resourceUpdated(notification.params.uri),
    );
    client.onerror = (error) => events.error(error);
    client.onclose = () => events.closed();
    return client;
  }

  /**
   * A server's question: to the user of the latest call in flight, else declined (a server may
   * not ask outside a call: nobody would know what it is about). The SDK checks the answer's shape;
   * the framework checked the values against the schema before they come back here.
   */
  private elicit(params: ElicitRequest['params']): Promise<ElicitResult> {
    return answerElicitation(params, {
      ask: this.askers.at(-1),
      server: this.name,
      log: this.options.log,
      // The framework checked the values; the SDK's schema types them for the wire.
      parse: (answer) => this.sdk!.types.ElicitResultSchema.parse(answer),
    });
  }

  private async openOnce(): Promise<SdkClient> {
    this.sdk ??= await loadSdk();
    const sdk = this.sdk;
    const timeout = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    const { spec, options } = this;
    if (spec.transport === 'stdio') {
      const { StdioClientTransport } = await loadStdioTransport();
      // The server dies with raf, even by kill -9 (issue 26: one that ignores EOF outlived it).
      // A command that is not there keeps the spawn's own ENOENT (a clear, permanent failure).
      const line = (await commandFile(spec))
        ? dieWithParent(spec.command, spec.args)
        : { command: spec.command, args: spec.args };
      if (this.revision === 'modern') return this.openModernStdio(line, timeout);
      const transport = new StdioClientTransport({
        command: line.command,
        args: line.args,
        env: spec.env,
        cwd: spec.cwd,
        stderr: 'pipe',
      });
      options.log.startAttempt();
      transport.stderr?.on('data', (chunk: Buffer) => options.log.stderr(chunk.toString('utf8')));
      const client = this.newClient(sdk);
      try {
        await client.connect(transport, { timeout });
      } catch (error) {
        await client.close().catch(() => undefined);
        // A server of the 2026-07-28 revision only: started again, and spoken to with the SDK v2.
        if (unsupportedRevision(error)) {
          this.switchToModern();
          return this.openModernStdio(line, timeout);
        }
        throw error;
      }
      this.pid = transport.pid ?? undefined;
      if (this.pid !== undefined) trackChild(this.pid);
      return client;
    }
    const url = new URL(spec.url);
    const requestInit = { headers: spec.headers };
    const authProvider = await this.oauthProvider();
    if (this.revision === 'modern') return this.openModern(url, authProvider, timeout);
    const mode = this.httpMode ?? 'streamable-http';
    const client = this.newClient(sdk);
    try {
      if (mode === 'sse') {
        const { SSEClientTransport } = await loadSseTransport();
        await client.connect(
          new SSEClientTransport(url, {
            requestInit,
            fetch: cappedFetch(),
            ...(authProvider && { authProvider }),
          }),
          { timeout },
        );
      } else {
        const { StreamableHTTPClientTransport } = await loadStreamableHttpTransport();
        await client.connect(
          new StreamableHTTPClientTransport(url, {
            requestInit,
            fetch: cappedFetch(),
            ...(authProvider && { authProvider }),
          }),
          { timeout },
        );
      }
    } catch (error) {
      await client.close().catch(() => undefined);
      // A server of the 2026-07-28 revision only: the SDK v2 speaks it (and negotiates).
      if (mode === 'streamable-http' && unsupportedRevision(error)) {
        this.switchToModern();
        return this.openModern(url, authProvider, timeout);
      }
      const status = httpStatus(error);
      // The spec's backwards compatibility: a 4xx to the initialize POST means an old HTTP+SSE server.
      if (
        spec.transport === 'http' &&
        !this.httpMode &&
        status !== undefined &&
        status >= 400 &&
        status < 500
      ) {
        options.log.event(`streamable HTTP answered ${status}; trying the older HTTP+SSE transport`);
        this.httpMode = 'sse';
        return this.openOnce();
      }
      throw error;
    }
    if (spec.transport === 'http') this.httpMode = mode;
    return client;
  }

  private switchToModern(): void {
    this.options.log.event(
      'the server refused the 2025-11-25 handshake; negotiating with the SDK v2 (2026-07-28)',
    );
    this.revision = 'modern';
  }

  private async openModern(
    url: URL,
    authProvider: RafOAuthProvider | undefined,
    timeoutMs: number,
  ): Promise<SdkClient> {
    const { spec } = this;
    const { client } = await openModernClient(
      { kind: 'http', url, headers: spec.transport === 'stdio' ? {} : spec.headers, authProvider },
      { clientInfo: this.clientInfo, timeoutMs, events: (c) => this.events(c) },
    );
    this.httpMode = 'streamable-http';
    return client;
  }

  /** The same process line as the 1.x start (it dies with raf), spoken to by the v2 client. */
  private async openModernStdio(
    line: { command: string; args: string[] },
    timeoutMs: number,
  ): Promise<SdkClient> {
    const { spec, options } = this;
    if (spec.transport !== 'stdio') throw new Error('unreachable: not a stdio server');
    options.log.startAttempt();
    const { client, pid } = await openModernClient(
      {
        kind: 'stdio',
        ...line,
        env: spec.env,
        cwd: spec.cwd,
        onStderr: (text) => options.log.stderr(text),
      },
      { clientInfo: this.clientInfo, timeoutMs, events: (c) => this.events(c) },
    );
    this.pid = pid;
    if (pid !== undefined) trackChild(pid);
    return client;
  }

  private get clientInfo(): { name: string; version: string } {
    return this.options.clientInfo ?? { name: 'raf', version: '0.1.0' };
  }

  /** Which SDK speaks to this server: the 1.x client (2025-11-25 and older) or the v2 one (2026-07-28). */
  get protocolRevision(): string | undefined {
    return (
      this.client as { getNegotiatedProtocolVersion?: () => string | undefined } | undefined
    )?.getNegotiatedProtocolVersion?.();
  }

  /** The OAuth provider of a `connection: { kind: oauth }` server, its tokens read from the store once. */
  private async oauthProvider(): Promise<RafOAuthProvider | undefined> {
    const { spec } = this;
    if (spec.transport === 'stdio' || !spec.oauth) return undefined;
    if (!this.oauth) {
      const store = this.options.credentials;
      if (!store)
        throw new McpLoginNeeded(
          this.name,
          `MCP server '${this.name}' uses OAuth, but no credential store was given`,
        );
      this.oauth = new RafOAuthProvider(spec.name, spec.url, spec.oauth, store);
    }
    await this.oauth.load();
    return this.oauth;
  }

  private all<T>(page: ListPage<T>): Promise<T[]> {
    return listAll(page, this.options.log);
  }

  private async refreshTools(client: SdkClient): Promise<void> {
    this.capabilities = client.getServerCapabilities();
    this.serverInstructions = client.getInstructions();
    const listed = this.capabilities?.tools
      ? await this.all((cursor) =>
          client
            .listTools(cursor ? { cursor } : undefined, { timeout: LIST_TIMEOUT_MS })
            .then((r) => ({ items: r.tools, next: r.nextCursor })),
        )
      : [];
    const callable = callableTools(listed, this.options.log);
    const changed = !this.listed || JSON.stringify(callable) !== JSON.stringify(this.toolList);
    this.toolList = callable;
    this.listed = true;
    if (changed) {
      this.version++;
      for (const listener of this.listeners) listener();
    }
  }

  /** Resolves once a tool-list refresh under way (a `list_changed` just arrived) is done. */
  async toolListSettled(): Promise<void> {
    await this.refreshing;
  }

  /** Coalesces notifications: one refresh at a time, and one more if another arrived meanwhile. */
  private async refreshSoon(client: SdkClient): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        try {
          await this.refreshTools(client);
          this.options.log.event(`tool list changed: ${this.toolList.length} tools`);
        } catch (error) {
          this.options.log.event(`tool list refresh failed: ${getErrorMessage(error)}`);
        }
      } while (this.refreshAgain && this.client === client);
    })().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }
}
