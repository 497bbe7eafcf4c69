import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { InputAnswer, InputRequest, JSONSchema } from '@raf/core';
import type { ServerLog } from './server-log.js';

/** A server's elicitation message is shown to the user: capped like any text from outside. */
const MAX_QUESTION_CHARS = 2000;
/** A form larger than this is declined (its schema is sent back to the model's user). */
const MAX_SCHEMA_BYTES = 64 * 1024;

/**
 * A server's question: to the user of the latest call in flight (`ask`), else declined (a server
 * may not ask outside a call: nobody would know what it is about). The SDK checks the answer's
 * shape (`parse`); the framework checked the values against the schema before they come back here.
 */
export async function answerElicitation(
  params: ElicitRequest['params'],
  options: {
    ask: ((request: InputRequest) => Promise<InputAnswer>) | undefined;
    server: string;
    log: ServerLog;
    parse: (answer: InputAnswer) => ElicitResult;
  },
): Promise<ElicitResult> {
  const { ask, log, parse } = options;
  if (!ask) {
    log.event('elicitation outside a tool call: declined');
    return { action: 'decline' };
  }
  const text = params.message.trim();
  const message = text.length > MAX_QUESTION_CHARS ? `${text.slice(0, MAX_QUESTION_CHARS)}…` : text;
  const source = `mcp:${options.server}`;
  if (params.mode === 'url') return parse(await ask({ source, message, mode: 'url', url: params.url }));
  const schema = params.requestedSchema;
  if (Buffer.byteLength(JSON.stringify(schema), 'utf8') > MAX_SCHEMA_BYTES) {
    log.event('elicitation with an oversized schema: declined');
    return { action: 'decline' };
  }
  return parse(await ask({ source, message, mode: 'form', schema: schema as JSONSchema }));
}
