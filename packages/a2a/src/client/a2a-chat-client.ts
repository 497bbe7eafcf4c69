import { randomUUID } from 'node:crypto';
import type { Client } from '@a2a-js/sdk/client';
import {
  type AgentResponseUpdate,
  CancelledError,
  ChatClientError,
  type ChatClientRunOptions,
  type ChatMessage,
  getErrorMessage,
  type IChatClient,
  messageText,
} from '@raf/core';
import { GuardedHttpClient, type HostResolver } from '@raf/web/http';
import { type A2AReply, replyOf } from './a2a-events.js';

export interface A2AChatClientOptions {
  /** The sub-agent's name: the client's `modelId`, named in errors. */
  name: string;
  /** The remote agent's base URL (its card is at `/.well-known/agent-card.json` below it). */
  url: string;
  /** Another path for the card (`/agents/support/card.json`); default the well-known one. */
  cardPath?: string;
  /** Headers sent with every request to the agent's origin (`Authorization: Bearer …`). */
  headers?: Readonly<Record<string, string>>;
  /** Private ranges, addresses or host names the SSRF guard admits (`127.0.0.1` for a local agent). */
  allowPrivate?: readonly string[];
  /** Largest body read from the agent, in bytes (default 5 MB). */
  maxBytes?: number;
  /** Time to open one connection (default 10 s). */
  connectTimeoutMs?: number;
  /** How host names are resolved (tests). */
  resolver?: HostResolver;
}

const PROVIDER = 'a2a';

/**
 * A remote A2A agent as a chat client, so a `kind: a2a` sub-agent is delegated to like a local
 * one (`delegate_task`): each run sends the task (the last user message) as one A2A message over
 * `@a2a-js/sdk`'s client and streams the reply back as text. Every request, the agent card's
 * included, goes through the SSRF guard of `@raf/web/http`, and only to the origin the author
 * named: a card pointing its interfaces elsewhere is refused, so the headers never leave it.
 */
export class A2AChatClient implements IChatClient {
  readonly modelId: string;
  readonly provider = PROVIDER;
  private readonly http: GuardedHttpClient;
  private readonly origin: string;
  private client: Promise<Client> | undefined;

  constructor(private readonly options: A2AChatClientOptions) {
    this.modelId = options.name;
    let base: URL;
    try {
      base = new URL(options.url);
    } catch (error) {
      throw new ChatClientError(`a2a sub-agent '${options.name}': "${options.url}" is not a URL`, {
        provider: PROVIDER,
        cause: error,
      });
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:')
      throw new ChatClientError(`a2a sub-agent '${options.name}': ${options.url} is not an http(s) URL`, {
        provider: PROVIDER,
      });
    this.origin = base.origin;
    this.http = new GuardedHttpClient({
      ...(options.allowPrivate && { allowPrivate: options.allowPrivate }),
      ...(options.maxBytes !== undefined && { maxBytes: options.maxBytes }),
      ...(options.connectTimeoutMs !== undefined && { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.resolver && { resolver: options.resolver }),
    });
  }

  /** The guarded fetch, held to the named origin, with the author's headers added. */
  private readonly fetch = async (
    input: string | URL | Request,
    init: RequestInit = {},
  ): Promise<Response> => {
    const href = typeof input === 'string' || input instanceof URL ? String(input) : input.url;
    const origin = new URL(href).origin;
    if (origin !== this.origin)
      throw new ChatClientError(
        `a2a sub-agent '${this.modelId}': the agent card points at ${origin}, not ${this.origin} (the URL in the agent file); refused`,
        { provider: PROVIDER, url: href },
      );
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(this.options.headers ?? {})) headers.set(name, value);
    return this.http.fetch(input, { ...init, headers });
  };

  private connect(): Promise<Client> {
    this.client ??= (async () => {
      const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } =
        await import('@a2a-js/sdk/client');
      const fetchImpl = this.fetch as typeof fetch;
      const factory = new ClientFactory({
        transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      });
      // The SDK resolves the card path against the URL: `…/agents/billing` must read as a folder
      // (`…/agents/billing/.well-known/agent-card.json`), not as a file beside `.well-known`.
      const base = this.options.url.endsWith('/') ? this.options.url : `${this.options.url}/`;
      return await factory.createFromUrl(base, this.options.cardPath);
    })();
    // A failed discovery is tried again next run (the agent may have been down).
    this.client.catch(() => {
      this.client = undefined;
    });
    return this.client;
  }

  async *run(
    messages: readonly ChatMessage[],
    options: ChatClientRunOptions = {},
  ): AsyncIterable<AgentResponseUpdate> {
    const signal = options.signal;
    const last = [...messages].reverse().find((m) => m.role === 'user');
    // The task is the user's text; attached images or files do not travel to a remote agent.
    const task = last && messageText(last);
    if (task === undefined)
      throw new ChatClientError(`a2a sub-agent '${this.modelId}': no task to send`, { provider: PROVIDER });
    let client: Client;
    try {
      client = await this.connect();
    } catch (error) {
      throw this.failure('cannot reach the agent', error, signal);
    }
    const { Role } = await import('@a2a-js/sdk');
    const request = {
      tenant: '',
      message: {
        messageId: randomUUID(),
        contextId: '',
        taskId: '',
        role: Role.ROLE_USER,
        parts: [
          {
            content: { $case: 'text' as const, value: task },
            metadata: undefined,
            filename: '',
            mediaType: 'text/plain',
          },
        ],
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: undefined,
      metadata: undefined,
    };
    const reply: A2AReply = { text: '', taskId: undefined, state: undefined, statusText: '' };
    let started = false;
    try {
      const events = client.sendMessageStream(request, { ...(signal && { signal }) });
      for await (const event of events) {
        for (const delta of replyOf(reply, event)) {
          started = true;
          yield { type: 'text-delta', delta };
        }
      }
    } catch (error) {
      if (!started) throw this.failure('the request failed', error, signal);
      if (signal?.aborted) {
        void this.cancel(client, reply.taskId);
        yield { type: 'finish', reason: 'cancelled' };
        return;
      }
      yield { type: 'error', code: 'a2a-stream', message: this.message('the stream broke off', error) };
      yield { type: 'finish', reason: 'other', rawReason: 'a2a-stream-error' };
      return;
    }
    yield* this.ending(reply);
  }

  /** The last updates, from the task's final state. */
  private *ending(reply: A2AReply): Iterable<AgentResponseUpdate> {
    const state = reply.state ?? 'completed';
    if (state === 'completed') {
      if (reply.text === '' && reply.statusText !== '') yield { type: 'text-delta', delta: reply.statusText };
      yield { type: 'finish', reason: 'stop' };
      return;
    }
    if (state === 'canceled') {
      yield { type: 'finish', reason: 'cancelled' };
      return;
    }
    // failed, rejected, input-required, auth-required: the delegation cannot finish here; the
    // coordinating model reads why (a remote agent's own questions are not relayed in this version).
    const why = reply.statusText ? `: ${reply.statusText}` : '';
    yield {
      type: 'error',
      code: `a2a-${state}`,
      message: `the remote agent '${this.modelId}' ended its task ${state}${why}`,
    };
    yield { type: 'finish', reason: 'other', rawReason: state };
  }

  private async cancel(client: Client, taskId: string | undefined): Promise<void> {
    if (!taskId) return;
    try {
      await client.cancelTask(
        { tenant: '', id: taskId, metadata: undefined },
        { signal: AbortSignal.timeout(5000) },
      );
    } catch {
      // Best effort: the remote agent may have finished, or be gone.
    }
  }

  private message(what: string, error: unknown): string {
    return `a2a sub-agent '${this.modelId}' (${this.options.url}): ${what}: ${getErrorMessage(error)}`;
  }

  private failure(what: string, error: unknown, signal: AbortSignal | undefined): Error {
    if (signal?.aborted) return new CancelledError('request cancelled', { cause: signal.reason });
    if (ChatClientError.isInstance(error)) return error;
    const cause = (error as { cause?: unknown }).cause;
    return new ChatClientError(this.message(what, cause ?? error), {
      provider: PROVIDER,
      url: this.options.url,
      cause: error,
    });
  }

  async dispose(): Promise<void> {
    await this.http.close();
  }
}
