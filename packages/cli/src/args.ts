import { parseArgs } from 'node:util';
import { commandOf, GLOBAL_OPTIONS, OPTIONS, type OptionName, USAGE } from './command-table.js';
import { CliError } from './io.js';

export { USAGE };

export interface CliArgs {
  command: string | undefined;
  files: string[];
  input?: string;
  /** `raf run --attach FILE…`: images and documents sent with the input. */
  attach?: string[];
  /**
   * `raf run --answer VALUE` (repeatable): the answers to this run's questions, in order: a
   * workflow paused for input (with `--session ID`) takes the first; MCP elicitations the next.
   */
  answers: string[];
  /** `raf inspect --mermaid`: the workflow graph as a Mermaid flowchart. */
  mermaid?: boolean;
  session?: string;
  sessionsDir: string;
  /** `--sessions-dir` was given (it then means `file:DIR` for sessions, over `RAF_STORE`). */
  sessionsDirGiven: boolean;
  /** `--store URL` (else `RAF_STORE`, else `file:.raf`). */
  store?: string;
  /** `--wait SECONDS`, in ms: how long a turn waits for the session's lease. */
  waitMs?: number;
  variables: Record<string, string>;
  approve: 'ask' | 'all' | 'none';
  json: boolean;
  strict: boolean;
  lenient: boolean;
  model?: string;
  baseURL?: string;
  /** `--mcp-config FILE`: a `mcp.json`-style server list the agent file can name servers from. */
  mcpConfig?: string;
  /** `raf run --trace FILE`: write the run's OpenTelemetry spans there as OTLP JSON. */
  trace?: string;
  /** `raf mcp serve --http PORT` (0: any free port). */
  httpPort?: number;
  host?: string;
  /** `raf mcp serve --expose-agent-to-network`: a non-loopback `--host` is allowed (token still required). */
  exposeAgentToNetwork?: boolean;
  /** `raf studio --port N` (0 or unset: any free port). */
  port?: number;
  /** `raf serve --tokens FILE`: bearer tokens and their tenants. */
  tokens?: string;
  /** `raf serve --public-url URL`: where clients reach the server (the A2A cards name it). */
  publicUrl?: string;
  /** `raf studio --server URL`: the `raf serve` whose /v1 API the studio's conversations use. */
  server?: string;
  /** `raf studio --token T`: that server's bearer token (else `RAF_SERVER_TOKEN`). */
  token?: string;
  /** `raf init`: take the defaults without asking (`--yes`), and what to put in the agent. */
  yes?: boolean;
  name?: string;
  provider?: string;
  web?: boolean;
  /** `raf mock --mode script|echo|tools`. */
  mode?: string;
  /** `raf studio --open`: open the page in the desktop's browser (best effort). */
  open?: boolean;
  /** `raf tools --governance FILE` (default `.raf/governance.json`). */
  governance?: string;
  /** `raf inspect --lang`: the language of the runtime labels. */
  lang: 'en' | 'zh-CN';
  /** `raf run --durable`: the run is a DBOS workflow on the Postgres store (`@raf/dbos`). */
  durable?: boolean;
  /** `raf worker --queue NAME --concurrency N`. */
  queue?: string;
  concurrency?: number;
  /** `raf approve RUN_ID --all | --none | --call ID…`. */
  approveAll?: boolean;
  approveNone?: boolean;
  calls?: string[];
  help: boolean;
  version: boolean;
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  const config = {
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true as const,
    strict: true as const,
    // Which option the user typed, as typed (`-i` or `--input`): the refusals name it so.
    tokens: true as const,
  };
  let parsed: ReturnType<typeof parseArgs<typeof config>>;
  try {
    parsed = parseArgs(config);
  } catch (error) {
    // Node's own text for these ends in a quote it never closes; say it plainly.
    const code = (error as { code?: string }).code;
    const option = /'(-[^']*)'/.exec((error as Error).message)?.[1];
    const message =
      code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option
        ? `unknown option ${option} (raf --help lists them; an input that starts with '-' goes in --input=TEXT or on stdin)`
        : (error as Error).message;
    throw new CliError(`${message}\n\n${USAGE}`);
  }
  const { values, positionals, tokens } = parsed;
  // `--help` and `--version` win over the rest of the line, as they always have.
  if (!values.help && !values.version) checkCommandLine(positionals, tokens);
  const approve = values.approve ?? 'ask';
  if (approve !== 'ask' && approve !== 'all' && approve !== 'none') {
    throw new CliError(`--approve must be ask, all or none (got "${approve}")`);
  }
  const lang = values.lang ?? 'en';
  if (lang !== 'en' && lang !== 'zh-CN') throw new CliError(`--lang must be en or zh-CN (got "${lang}")`);
  const httpPort = portOf('--http', values.http);
  const port = portOf('--port', values.port);
  const waitMs = waitMsOf(values.wait);
  const variables: Record<string, string> = {};
  for (const pair of values.var ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new CliError(`--var expects key=value (got "${pair}")`);
    variables[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return {
    command: positionals[0],
    files: positionals.slice(1),
    ...(values.input !== undefined && { input: values.input }),
    ...(values.attach !== undefined && { attach: values.attach }),
    answers: values.answer ?? [],
    ...(values.mermaid && { mermaid: true }),
    ...(values.session !== undefined && { session: values.session }),
    sessionsDir: values['sessions-dir'] ?? '.raf/sessions',
    sessionsDirGiven: values['sessions-dir'] !== undefined,
    ...(values.store !== undefined && { store: values.store }),
    ...(waitMs !== undefined && { waitMs }),
    variables,
    approve,
    json: values.json ?? false,
    strict: values.strict ?? false,
    lenient: values.lenient ?? false,
    ...(values.model !== undefined && { model: values.model }),
    ...(values['base-url'] !== undefined && { baseURL: values['base-url'] }),
    ...(values['mcp-config'] !== undefined && { mcpConfig: values['mcp-config'] }),
    ...(values.trace !== undefined && { trace: values.trace }),
    ...(httpPort !== undefined && { httpPort }),
    ...(values.host !== undefined && { host: values.host }),
    ...(values['expose-agent-to-network'] && { exposeAgentToNetwork: true }),
    ...(port !== undefined && { port }),
    ...(values.tokens !== undefined && { tokens: values.tokens }),
    ...(values['public-url'] !== undefined && { publicUrl: values['public-url'] }),
    ...(values.server !== undefined && { server: values.server }),
    ...(values.token !== undefined && { token: values.token }),
    ...(values.open && { open: true }),
    ...(values.mode !== undefined && { mode: values.mode }),
    ...(values.yes && { yes: true }),
    ...(values.name !== undefined && { name: values.name }),
    ...(values.provider !== undefined && { provider: values.provider }),
    ...(values.web && { web: true }),
    ...(values.governance !== undefined && { governance: values.governance }),
    ...(values.durable && { durable: true }),
    ...(values.queue !== undefined && { queue: values.queue }),
    ...(values.concurrency !== undefined && { concurrency: countOf('--concurrency', values.concurrency) }),
    ...(values.all && { approveAll: true }),
    ...(values.none && { approveNone: true }),
    ...(values.call !== undefined && { calls: values.call }),
    lang,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}

/** `--wait SECONDS` in ms, or undefined when not given. */
function waitMsOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d+)?$/.test(value)) throw new CliError(`--wait expects a number of seconds (got "${value}")`);
  return Math.round(Number(value) * 1000);
}

/** A positive count (`--concurrency N`). */
function countOf(option: string, value: string): number {
  if (!/^[1-9]\d{0,4}$/.test(value))
    throw new CliError(`${option} expects a whole number above 0 (got "${value}")`);
  return Number(value);
}

/** A TCP port option's value (0: any free port), or undefined when not given. */
function portOf(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new CliError(`${option} expects a port number (got "${value}")`);
  return port;
}

/** What `parseArgs({ tokens: true })` says of one option on the line, as the user typed it. */
interface OptionToken {
  kind: 'option';
  name: string;
  rawName: string;
  value?: string | undefined;
}

const isOption = (token: { kind: string }): token is OptionToken => token.kind === 'option';

/**
 * Refuses what the command would otherwise ignore: an option it does not take, an argument too
 * many, a value given twice or empty, options that exclude each other or need another.
 */
function checkCommandLine(positionals: readonly string[], tokens: readonly { kind: string }[]): void {
  const found = commandOf(positionals);
  // No command, or one the dispatcher refuses with its own message (`raf mcp start`).
  if (!found) return;
  const { name, spec, words } = found;
  const given = new Map<OptionName, OptionToken>();
  for (const token of tokens) {
    if (!isOption(token)) continue;
    const option = token.name as OptionName;
    if (!spec.options.includes(option) && !GLOBAL_OPTIONS.includes(option))
      throw new CliError(`raf ${name} does not take ${token.rawName} (raf ${name} --help lists its options)`);
    const definition: { type: string; multiple?: boolean } = OPTIONS[option];
    if (definition.type === 'string' && given.has(option) && !definition.multiple)
      throw new CliError(`${token.rawName} is given twice; give it once`);
    // An empty -i has its own message (`raf run got no input`) and an empty --answer is an answer;
    // any other empty value would be dropped as if not given.
    if (token.value === '' && option !== 'input' && option !== 'answer')
      throw new CliError(`${token.rawName} needs a value (got an empty one)`);
    given.set(option, token);
  }
  for (const group of spec.exclusive ?? []) {
    const clash = group.filter((o) => given.has(o)).map((o) => given.get(o)?.rawName);
    if (clash.length > 1)
      throw new CliError(`raf ${name}: ${clash.join(' and ')} exclude each other; give one`);
  }
  for (const [option, needed] of Object.entries(spec.requires ?? {})) {
    const token = given.get(option as OptionName);
    if (token && !given.has(needed))
      throw new CliError(`raf ${name}: ${token.rawName} applies only with --${needed}`);
  }
  const extra = spec.most === undefined ? undefined : positionals[words + spec.most];
  if (extra !== undefined) {
    const hint = name === 'run' ? ' (the input goes in -i "…" or on stdin)' : '';
    throw new CliError(`raf ${name}: unexpected argument "${extra}"${hint}`);
  }
}
