import { createHash } from 'node:crypto';
import { McpServerError } from '../errors.js';

/**
 * A header whose value comes from the run's context (`Authorization: "Bearer =Context.mcpToken"`):
 * an optional literal prefix, then `=Context.` and a dotted path into `agent.run(…, { context })`.
 */
export interface ContextHeader {
  prefix: string;
  path: string[];
}

const REFERENCE = /^(.*?)=Context\.([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)$/s;

/** Splits configured headers into fixed ones and those read from each run's context. */
export function splitHeaders(headers: Record<string, string>): {
  fixed: Record<string, string>;
  fromContext: Record<string, ContextHeader>;
} {
  const fixed: Record<string, string> = {};
  const fromContext: Record<string, ContextHeader> = {};
  for (const [name, value] of Object.entries(headers)) {
    const match = REFERENCE.exec(value);
    if (match) fromContext[name] = { prefix: match[1] ?? '', path: match[2]!.split('.') };
    else fixed[name] = value;
  }
  return { fixed, fromContext };
}

/** The run's values for those headers; a missing one fails the call (never the shared credentials). */
export function resolveContextHeaders(
  server: string,
  refs: Record<string, ContextHeader>,
  context: unknown,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, ref] of Object.entries(refs)) {
    let value: unknown = context;
    for (const key of ref.path)
      value =
        value && typeof value === 'object' && Object.hasOwn(value, key)
          ? (value as Record<string, unknown>)[key]
          : undefined;
    if (typeof value !== 'string' && typeof value !== 'number')
      throw new McpServerError(
        server,
        `MCP server '${server}' needs Context.${ref.path.join('.')} for its ${name} header, and this run's context has none (agent.run(input, { context }))`,
      );
    out[name] = `${ref.prefix}${value}`;
  }
  return out;
}

/** A closable connection, as the catalog makes them. */
interface Closable {
  close(): Promise<void>;
}

/**
 * One connection per distinct set of per-request credentials: two users never share a session
 * (nor the server's per-session state). At most `limit` are kept open; the least recently used
 * is closed first. Keys are hashes: the credentials are not kept as map keys.
 */
export class UserConnections<C extends Closable> {
  private readonly open = new Map<string, C>();

  constructor(
    private readonly make: (headers: Record<string, string>) => C,
    private readonly limit = 64,
  ) {}

  get(headers: Record<string, string>): C {
    const key = createHash('sha256')
      .update(JSON.stringify(Object.entries(headers).sort(([a], [b]) => a.localeCompare(b))))
      .digest('hex');
    let connection = this.open.get(key);
    if (connection) {
      this.open.delete(key);
      this.open.set(key, connection);
      return connection;
    }
    connection = this.make(headers);
    this.open.set(key, connection);
    if (this.open.size > this.limit) {
      const [oldest] = this.open;
      if (oldest) {
        this.open.delete(oldest[0]);
        void oldest[1].close().catch(() => undefined);
      }
    }
    return connection;
  }

  get size(): number {
    return this.open.size;
  }

  async close(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((c) => c.close().catch(() => undefined)));
  }
}
