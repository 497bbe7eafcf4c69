import { parseArgs } from 'node:util';
import { CliError } from './io.js';

export const USAGE = `raf — run declarative RAF agents

Commands:
  run <agent.yaml>        run one turn (or resume a paused one) and exit
  chat <agent.yaml>       an interactive session; Ctrl-C cancels the turn, /exit leaves
  validate <agent.yaml>…  every problem with file:line:col; exit 2 on errors
  inspect <agent.yaml>    the effective plan: tools, routing, gating, provider order, runtime routes
  tools <action>          the project's tool governance: list, enable, disable, route, hint, core
  index <agent.yaml>      build or refresh the agent's knowledge and wiki indexes
  schema                  the JSON Schema of agent files, for editors
  studio [agent.yaml…]    the local web app: Tools, Agent and Conversation pages (127.0.0.1, token)
  memory check <dir>      validate a super-brain memory bundle; exit 2 on problems
  memory consolidate <agent.yaml>  fold the conversation into memory now (waits for it)
  mcp serve <agent.yaml>  the agent as an MCP server, on stdio or --http

Usage:
  raf run <agent.yaml> [-i TEXT | stdin] [--strict] [--session ID] [--sessions-dir DIR] [--var k=v]…
                       [--approve ask|all|none] [--json] [--model ID] [--base-url URL] [--trace FILE]
                       [--answer TEXT]   (a workflow paused for input: with --session ID)
  raf chat <agent.yaml> [--session ID] [--sessions-dir DIR] [--var k=v]… [--model ID] [--base-url URL]
  raf validate <agent.yaml>… [--json] [--lenient | --strict]
                       (unknown keys are errors unless --lenient; --strict: missing folders too)
  raf inspect <agent.yaml> [--json | --mermaid] [--lang en|zh-CN]
  raf tools list [--json] [--governance FILE]       (default .raf/governance.json)
  raf tools enable|disable NAME… [--governance FILE]
  raf tools route NAME auto|force-local|force-main-process-proxy|force-disabled [--governance FILE]
  raf tools hint NAME [TEXT] [--governance FILE]    (no TEXT: remove the hint)
  raf tools core NAME on|off [--governance FILE]
  raf schema
  raf studio [agent.yaml…] [--port N] [--open] [--governance FILE] [--sessions-dir DIR]
  raf memory check <dir> [--json]
  raf memory consolidate <agent.yaml> [--session ID] [--sessions-dir DIR] [--json]
  raf mcp serve <agent.yaml> [--http PORT] [--host HOST] [--approve ask|all|none]   (the agent as an MCP server)
  raf --version | -V
  raf --help | -h

Exit codes: 0 done, 2 bad config or usage, 3 paused for approval or input, 4 model/provider failure, 130 interrupted.
Environment: RAF_MODEL overrides the YAML's model id; OPENAI_BASE_URL, OPENAI_API_KEY, DEEPSEEK_API_KEY, …
fill only what the YAML leaves empty, for their own provider.
`;

const OPTIONS = {
  input: { type: 'string', short: 'i' },
  answer: { type: 'string' },
  mermaid: { type: 'boolean' },
  session: { type: 'string' },
  'sessions-dir': { type: 'string' },
  var: { type: 'string', multiple: true },
  approve: { type: 'string' },
  json: { type: 'boolean' },
  strict: { type: 'boolean' },
  lenient: { type: 'boolean' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  trace: { type: 'string' },
  http: { type: 'string' },
  governance: { type: 'string' },
  lang: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  open: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

export interface CliArgs {
  command: string | undefined;
  files: string[];
  input?: string;
  /** `raf run --answer TEXT`: the answer a paused workflow asked for (with `--session ID`). */
  answer?: string;
  /** `raf inspect --mermaid`: the workflow graph as a Mermaid flowchart. */
  mermaid?: boolean;
  session?: string;
  sessionsDir: string;
  variables: Record<string, string>;
  approve: 'ask' | 'all' | 'none';
  json: boolean;
  strict: boolean;
  lenient: boolean;
  model?: string;
  baseURL?: string;
  /** `raf run --trace FILE`: write the run's OpenTelemetry spans there as OTLP JSON. */
  trace?: string;
  /** `raf mcp serve --http PORT` (0: any free port). */
  httpPort?: number;
  host?: string;
  /** `raf studio --port N` (0 or unset: any free port). */
  port?: number;
  /** `raf studio --open`: open the page in the desktop's browser (best effort). */
  open?: boolean;
  /** `raf tools --governance FILE` (default `.raf/governance.json`). */
  governance?: string;
  /** `raf inspect --lang`: the language of the runtime labels. */
  lang: 'en' | 'zh-CN';
  help: boolean;
  version: boolean;
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; args: string[] }>
  >;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
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
  const { values, positionals } = parsed;
  const approve = values.approve ?? 'ask';
  if (approve !== 'ask' && approve !== 'all' && approve !== 'none') {
    throw new CliError(`--approve must be ask, all or none (got "${approve}")`);
  }
  const lang = values.lang ?? 'en';
  if (lang !== 'en' && lang !== 'zh-CN') throw new CliError(`--lang must be en or zh-CN (got "${lang}")`);
  let httpPort: number | undefined;
  if (values.http !== undefined) {
    httpPort = Number(values.http);
    if (!/^\d+$/.test(values.http) || httpPort > 65535)
      throw new CliError(`--http expects a port number (got "${values.http}")`);
  }
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535)
      throw new CliError(`--port expects a port number (got "${values.port}")`);
  }
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
    ...(values.answer !== undefined && { answer: values.answer }),
    ...(values.mermaid && { mermaid: true }),
    ...(values.session !== undefined && { session: values.session }),
    sessionsDir: values['sessions-dir'] ?? '.raf/sessions',
    variables,
    approve,
    json: values.json ?? false,
    strict: values.strict ?? false,
    lenient: values.lenient ?? false,
    ...(values.model !== undefined && { model: values.model }),
    ...(values['base-url'] !== undefined && { baseURL: values['base-url'] }),
    ...(values.trace !== undefined && { trace: values.trace }),
    ...(httpPort !== undefined && { httpPort }),
    ...(values.host !== undefined && { host: values.host }),
    ...(port !== undefined && { port }),
    ...(values.open && { open: true }),
    ...(values.governance !== undefined && { governance: values.governance }),
    lang,
    help: values.help ?? false,
    version: values.version ?? false,
  };
}
