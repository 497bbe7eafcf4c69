import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hashedEmbedding } from './hashed-embedding.js';

export interface EmbeddingsServerOptions {
  dimension?: number;
  /** Answers the first N requests with this status (503 by default) to exercise retries. */
  failFirst?: number;
  failStatus?: number;
  /** A `retry-after` header on the failures, in seconds. */
  retryAfterSeconds?: number;
}

export interface EmbeddingsServer {
  /** `http://127.0.0.1:PORT/v1`: what `OpenAIEmbeddings` takes as `baseURL`. */
  baseURL: string;
  /** Requests and embedded texts so far (failed requests count as requests, not texts). */
  readonly requests: number;
  readonly inputs: number;
  /** Every embedded text, in order. */
  readonly texts: readonly string[];
  reset(): void;
  close(): Promise<void>;
}

async function body(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function send(
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(value));
}

/**
 * An OpenAI-compatible `POST /v1/embeddings` server on 127.0.0.1 with deterministic vectors
 * (`hashedEmbedding`): tests and examples run the vector and hybrid paths offline, and count
 * what was embedded.
 */
export async function startEmbeddingsServer(
  options: EmbeddingsServerOptions = {},
): Promise<EmbeddingsServer> {
  const dimension = options.dimension ?? 384;
  let requests = 0;
  let texts: string[] = [];
  const server = createServer((request, response) => {
    void (async () => {
      const text = await body(request);
      requests++;
      if (request.method !== 'POST' || !request.url?.endsWith('/embeddings')) {
        return send(response, 404, { error: { message: 'not found' } });
      }
      if (requests <= (options.failFirst ?? 0)) {
        const headers: Record<string, string> =
          options.retryAfterSeconds === undefined ? {} : { 'retry-after': String(options.retryAfterSeconds) };
        return send(response, options.failStatus ?? 503, { error: { message: 'try again' } }, headers);
      }
      let input: unknown;
      let model: unknown;
      try {
        ({ input, model } = JSON.parse(text) as { input?: unknown; model?: unknown });
      } catch {
        return send(response, 400, { error: { message: 'body is not JSON' } });
      }
      const list = typeof input === 'string' ? [input] : input;
      if (!Array.isArray(list) || list.some((t) => typeof t !== 'string')) {
        return send(response, 400, { error: { message: 'input must be a string or an array of strings' } });
      }
      texts.push(...(list as string[]));
      send(response, 200, {
        object: 'list',
        model,
        data: (list as string[]).map((t, index) => ({
          object: 'embedding',
          index,
          embedding: hashedEmbedding(t, dimension),
        })),
        usage: { prompt_tokens: 0, total_tokens: 0 },
      });
    })().catch((error: unknown) => send(response, 500, { error: { message: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return requests;
    },
    get inputs() {
      return texts.length;
    },
    get texts() {
      return texts;
    },
    reset() {
      requests = 0;
      texts = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
