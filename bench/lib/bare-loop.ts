import { type Dispatcher, request } from 'undici';

export interface BareCall {
  id: string;
  name: string;
  args: string;
}

export interface BareAnswer {
  text: string;
  calls: BareCall[];
}

type Delta = {
  content?: string;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
};

/**
 * The minimum SSE handling: split events, strip `data: `, JSON.parse, concatenate text and each
 * call's id, name and arguments. No retries, timeouts or checks.
 */
class BareSse {
  readonly answer: BareAnswer = { text: '', calls: [] };
  private readonly decoder = new TextDecoder();
  private buffer = '';

  feed(chunk: Uint8Array): void {
    this.buffer += this.decoder.decode(chunk, { stream: true });
    // Scan with an index and keep only the unfinished tail: linear in the bytes received.
    let start = 0;
    let end = this.buffer.indexOf('\n\n');
    while (end !== -1) {
      const data = this.buffer.slice(start + 6, end);
      if (data !== '[DONE]')
        this.delta((JSON.parse(data) as { choices?: { delta?: Delta }[] }).choices?.[0]?.delta);
      start = end + 2;
      end = this.buffer.indexOf('\n\n', start);
    }
    this.buffer = this.buffer.slice(start);
  }

  private delta(delta: Delta | undefined): void {
    if (delta?.content) this.answer.text += delta.content;
    for (const c of delta?.tool_calls ?? []) {
      let call = this.answer.calls[c.index];
      if (!call) {
        call = { id: '', name: '', args: '' };
        this.answer.calls[c.index] = call;
      }
      if (c.id) call.id = c.id;
      if (c.function?.name) call.name += c.function.name;
      if (c.function?.arguments) call.args += c.function.arguments;
    }
  }
}

function requestBody(body: Record<string, unknown>): string {
  return JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } });
}

const HEADERS = { 'content-type': 'application/json', authorization: 'Bearer x' };

/** The floor: one hand-written `undici.request` read with `for await`. Both benchmarks' floors use it. */
export async function bareChatCompletion(
  baseURL: string,
  body: Record<string, unknown>,
  dispatcher: Dispatcher,
): Promise<BareAnswer> {
  const response = await request(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: HEADERS,
    body: requestBody(body),
    dispatcher,
  });
  const sse = new BareSse();
  for await (const chunk of response.body) sse.feed(chunk as Buffer);
  return sse.answer;
}

/**
 * The same request on undici's lowest public level, `dispatch` callbacks (what `@raf/client`
 * reads): no Readable stream between the socket and the parser. A lower floor than `request()`.
 */
export function bareDispatchChatCompletion(
  baseURL: string,
  body: Record<string, unknown>,
  dispatcher: Dispatcher,
): Promise<BareAnswer> {
  const url = new URL(`${baseURL}/chat/completions`);
  const sse = new BareSse();
  return new Promise((resolve, reject) => {
    dispatcher.dispatch(
      { origin: url.origin, path: url.pathname, method: 'POST', headers: HEADERS, body: requestBody(body) },
      {
        // undici reads a handler with onRequestStart as the current (controller) kind.
        onRequestStart: () => {},
        onResponseData: (_controller, chunk) => sse.feed(chunk),
        onResponseEnd: () => resolve(sse.answer),
        onResponseError: (_controller, error) => reject(error),
      },
    );
  });
}
