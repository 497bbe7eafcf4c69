/**
 * The command line's one source of truth: every option (`OPTIONS`, for `node:util` parseArgs) and,
 * per command, the options it takes, how many arguments follow it and its usage lines. `--help`,
 * `raf <command> --help` and the check that refuses an option a command would ignore all read it.
 * Plain data: it sits on the start-up path of every command.
 */

export const OPTIONS = {
  input: { type: 'string', short: 'i' },
  attach: { type: 'string', multiple: true },
  answer: { type: 'string', multiple: true },
  mermaid: { type: 'boolean' },
  session: { type: 'string' },
  'sessions-dir': { type: 'string' },
  store: { type: 'string' },
  wait: { type: 'string' },
  var: { type: 'string', multiple: true },
  approve: { type: 'string' },
  json: { type: 'boolean' },
  strict: { type: 'boolean' },
  lenient: { type: 'boolean' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  'mcp-config': { type: 'string' },
  trace: { type: 'string' },
  http: { type: 'string' },
  governance: { type: 'string' },
  lang: { type: 'string' },
  host: { type: 'string' },
  'expose-agent-to-network': { type: 'boolean' },
  port: { type: 'string' },
  tokens: { type: 'string' },
  'public-url': { type: 'string' },
  server: { type: 'string' },
  token: { type: 'string' },
  open: { type: 'boolean' },
  mode: { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  name: { type: 'string' },
  provider: { type: 'string' },
  web: { type: 'boolean' },
  durable: { type: 'boolean' },
  queue: { type: 'string' },
  concurrency: { type: 'string' },
  all: { type: 'boolean' },
  none: { type: 'boolean' },
  call: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'V' },
} as const;

export type OptionName = keyof typeof OPTIONS;

/** Options every command takes (SPEC §11: `raf --help`, `raf --version`). */
export const GLOBAL_OPTIONS: readonly OptionName[] = ['help', 'version'];

export interface CommandSpec {
  /** How the command is named in the list of `raf --help`. */
  synopsis: string;
  summary: string;
  /** The options it takes besides the global ones: any other is refused, not ignored. */
  options: readonly OptionName[];
  /** Its usage lines, which name exactly `options`. */
  usage: string;
  /** Groups of options of which at most one may be given (the others would be ignored). */
  exclusive?: readonly (readonly OptionName[])[];
  /** Options that do something only beside another one. */
  requires?: Partial<Record<OptionName, OptionName>>;
  /** How many arguments may follow the command's words (unset: any number, or the command checks). */
  most?: number;
  /** The exit codes it can return, when not all of `EXIT_CODES` (`raf validate` never pauses). */
  exits?: string;
}

/**
 * What picks the model an agent runs with and the MCP servers it can name: for the commands that
 * run it or show its plan.
 */
const MODEL: readonly OptionName[] = ['model', 'base-url', 'mcp-config'];

const INDENT = ' '.repeat(23);

/**
 * Keyed by the command's words: `mcp serve` and `memory check` are commands of their own. The
 * order is the order of `raf --help`.
 */
export const COMMANDS: Readonly<Record<string, CommandSpec>> = {
  init: {
    synopsis: 'init [dir]',
    summary: 'write a template agent and its workspace/ (asks on a terminal; never overwrites)',
    options: ['yes', 'name', 'provider', 'model', 'web'],
    usage: `raf init [dir] [--yes] [--name NAME] [--provider openai|deepseek|anthropic|agnes|custom] [--model ID] [--web]
${INDENT}(on a terminal it asks what to include; --yes takes the defaults and the flags)`,
    most: 1,
    exits: 'Exit codes: 0 written, 2 a file exists (never overwritten) or bad usage.',
  },
  run: {
    synopsis: 'run <agent.yaml>',
    summary: 'run one turn (or resume a paused one) and exit',
    options: [
      'input',
      'attach',
      'strict',
      'session',
      'sessions-dir',
      'store',
      'wait',
      'var',
      'approve',
      'json',
      ...MODEL,
      'trace',
      'answer',
      'durable',
    ],
    usage: `raf run <agent.yaml> [-i TEXT | stdin] [--attach FILE]… [--strict] [--session ID] [--sessions-dir DIR] [--var k=v]…
${INDENT}[--store URL] [--wait SECONDS]   (file:DIR, sqlite:PATH, postgres://…; default file:.raf or RAF_STORE)
${INDENT}[--approve ask|all|none] [--json] [--model ID] [--base-url URL] [--mcp-config FILE] [--trace FILE]
${INDENT}[--answer VALUE]…   (this run's questions in order: an MCP server's, JSON for a form; a workflow paused for input, with --session ID)
${INDENT}[--durable]   (a DBOS workflow on --store postgres://…: a worker finishes it if this process dies)`,
    exclusive: [
      ['store', 'sessions-dir'],
      ['durable', 'trace'],
      ['durable', 'sessions-dir'],
    ],
    most: 1,
  },
  chat: {
    synopsis: 'chat <agent.yaml>',
    summary: 'an interactive session; Ctrl-C cancels the turn, /help, /exit',
    options: ['session', 'sessions-dir', 'store', 'wait', 'var', ...MODEL, 'strict'],
    usage: `raf chat <agent.yaml> [--session ID] [--sessions-dir DIR] [--store URL] [--wait SECONDS] [--var k=v]…
${INDENT}[--model ID] [--base-url URL] [--mcp-config FILE] [--strict]`,
    exclusive: [['store', 'sessions-dir']],
    most: 1,
  },
  validate: {
    synopsis: 'validate <agent.yaml>…',
    summary: 'every problem with file:line:col; exit 2 on errors',
    options: ['json', 'lenient', 'strict', 'mcp-config'],
    usage: `raf validate <agent.yaml>… [--json] [--lenient | --strict] [--mcp-config FILE]
${INDENT}(unknown keys are errors unless --lenient; --strict: missing folders too)`,
    exclusive: [['lenient', 'strict']],
    exits: 'Exit codes: 0 every file is valid, 2 a file has errors (or bad usage).',
  },
  inspect: {
    synopsis: 'inspect <agent.yaml>',
    summary: 'the effective plan: tools, routing, gating, provider order, runtime routes',
    options: ['json', 'mermaid', 'lang', ...MODEL, 'var', 'sessions-dir', 'store', 'strict'],
    usage: `raf inspect <agent.yaml> [--json | --mermaid | --lang en|zh-CN]
${INDENT}[--model ID] [--base-url URL] [--mcp-config FILE] [--var k=v]… [--sessions-dir DIR] [--store URL] [--strict]   (the plan raf run would follow)`,
    exclusive: [
      ['json', 'mermaid', 'lang'],
      ['store', 'sessions-dir'],
    ],
    most: 1,
    exits: 'Exit codes: 0 printed, 2 bad config or usage.',
  },
  tools: {
    synopsis: 'tools <action>',
    summary: "the project's tool governance: list, enable, disable, route, hint, core",
    options: ['json', 'governance', 'store'],
    usage: `raf tools list [--json] [--governance FILE | --store URL]       (default .raf/governance.json)
  raf tools enable|disable NAME… [--json] [--governance FILE | --store URL]
  raf tools route NAME auto|force-local|force-main-process-proxy|force-disabled [--json] [--governance FILE | --store URL]
  raf tools hint NAME [TEXT] [--json] [--governance FILE | --store URL]    (no TEXT: remove the hint)
  raf tools core NAME on|off [--json] [--governance FILE | --store URL]`,
    exclusive: [['governance', 'store']],
    exits: 'Exit codes: 0 done, 2 bad governance file or usage.',
  },
  index: {
    synopsis: 'index <agent.yaml>',
    summary: "build or refresh the agent's knowledge and wiki indexes",
    options: ['json', 'var', 'strict'],
    usage: 'raf index <agent.yaml> [--json] [--var k=v]… [--strict]',
    most: 1,
  },
  schema: {
    synopsis: 'schema',
    summary: 'the JSON Schema of agent files, for editors',
    options: [],
    usage: 'raf schema',
    most: 0,
    exits: 'Exit codes: 0 printed, 2 bad usage.',
  },
  studio: {
    synopsis: 'studio [agent.yaml…]',
    summary: 'the local web app: Tools, Agent and Conversation pages (127.0.0.1, token)',
    options: ['port', 'open', 'governance', 'sessions-dir', 'store', ...MODEL, 'var', 'server', 'token'],
    usage: `raf studio [agent.yaml…] [--port N] [--open] [--governance FILE] [--sessions-dir DIR] [--store URL]
${INDENT}[--model ID] [--base-url URL] [--mcp-config FILE] [--var k=v]…
${INDENT}raf studio --server URL [--token T] [--port N] [--open]   (conversations on a raf serve; token also RAF_SERVER_TOKEN)`,
    exclusive: [
      ['store', 'sessions-dir'],
      ['store', 'governance'],
      ['server', 'store'],
      ['server', 'sessions-dir'],
      ['server', 'governance'],
      ['server', 'model'],
      ['server', 'base-url'],
      ['server', 'mcp-config'],
      ['server', 'var'],
    ],
    requires: { token: 'server' },
  },
  serve: {
    synopsis: 'serve <files or folder>',
    summary: 'the agents as an HTTP service: the /v1 API, SSE run events, tokens per tenant',
    options: ['store', 'host', 'port', 'tokens', 'public-url', ...MODEL, 'var', 'durable'],
    usage: `raf serve <agent files or a folder> [--store URL] [--host 127.0.0.1] [--port P] [--tokens FILE]
${INDENT}(--tokens FILE: {"<token>": "<tenant>"}; without it: loopback only, one generated token printed)
${INDENT}[--model ID] [--base-url URL] [--mcp-config FILE] [--var k=v]…
${INDENT}[--durable]   (runs are DBOS workflows on --store postgres://…: another replica finishes a dead one's)
${INDENT}[--public-url URL]   (where clients reach it, behind a proxy: the A2A cards name it; default the bound address)`,
    exits: 'Exit codes: 0 stopped by Ctrl-C or SIGTERM, 2 bad agent file, tokens file or usage.',
  },
  mock: {
    synopsis: 'mock [script.yaml]',
    summary: 'an offline OpenAI-compatible model on 127.0.0.1 (script, echo, tools)',
    options: ['port', 'mode'],
    usage: `raf mock [script.yaml] [--port N] [--mode script|echo|tools]   (default: script with a file, else echo)
${INDENT}(a script: a YAML list of turns, each \`text:\` and/or \`toolCalls: [{ name, arguments }]\`)`,
    most: 1,
    exits: 'Exit codes: 0 stopped by Ctrl-C or SIGTERM, 2 bad script or usage.',
  },
  'memory check': {
    synopsis: 'memory check <dir>',
    summary: 'validate a super-brain memory bundle; exit 2 on problems',
    options: ['json'],
    usage: 'raf memory check <dir> [--json]',
    most: 1,
    exits: 'Exit codes: 0 the bundle is valid, 2 it has problems (or bad usage).',
  },
  'memory consolidate': {
    synopsis: 'memory consolidate <agent.yaml>',
    summary: 'fold the conversation into memory now (waits for it)',
    options: ['session', 'sessions-dir', 'store', 'wait', 'json', ...MODEL, 'var', 'strict'],
    usage: `raf memory consolidate <agent.yaml> [--session ID] [--sessions-dir DIR] [--store URL] [--wait SECONDS] [--json]
${INDENT}[--model ID] [--base-url URL] [--mcp-config FILE] [--var k=v]… [--strict]`,
    exclusive: [['store', 'sessions-dir']],
    most: 1,
  },
  worker: {
    synopsis: 'worker',
    summary: 'take over durable runs whose process died, and consume the run queue',
    options: ['store', 'queue', 'concurrency'],
    usage: `raf worker [--store postgres://…] [--queue NAME] [--concurrency N]   (default RAF_STORE; queue raf-runs; 10 runs)`,
    most: 0,
    exits:
      'Exit codes: 0 stopped by Ctrl-C or SIGTERM, 2 bad store or usage, 5 another worker took this one over.',
  },
  approve: {
    synopsis: 'approve <run-id>',
    summary: 'answer a durable run paused for approval or input, from any folder (one answer wins)',
    options: ['all', 'none', 'call', 'answer', 'store', 'json'],
    usage: `raf approve <run-id> --all | --none | --call ID… | --answer TEXT… [--store postgres://…] [--json]
${INDENT}(--call: those approved, the rest denied; --answer: a workflow's question, once per question in order)`,
    exclusive: [['all', 'none', 'call']],
    most: 1,
    exits:
      'Exit codes: 0 answered, 2 no such run or call, or an answer of the wrong kind (or bad usage), 5 not paused or already answered.',
  },
  'runs list': {
    synopsis: 'runs list',
    summary: 'durable runs on the store, newest first',
    options: ['store', 'json'],
    usage: 'raf runs list [--store postgres://…] [--json]',
    most: 0,
    exits: 'Exit codes: 0 printed, 2 bad store or usage.',
  },
  'runs show': {
    synopsis: 'runs show <run-id>',
    summary: "a durable run's status, answer and pending approvals",
    options: ['store', 'json'],
    usage: 'raf runs show <run-id> [--store postgres://…] [--json]',
    most: 1,
    exits: 'Exit codes: 0 printed, 2 no such run (or bad usage).',
  },
  'runs cancel': {
    synopsis: 'runs cancel <run-id>',
    summary: 'cancel a durable run wherever it runs',
    options: ['store', 'json'],
    usage: 'raf runs cancel <run-id> [--store postgres://…] [--json]',
    most: 1,
    exits: 'Exit codes: 0 cancelled (or already ended), 2 no such run (or bad usage).',
  },
  'mcp serve': {
    synopsis: 'mcp serve <agent.yaml>',
    summary: 'the agent as an MCP server, on stdio or --http',
    options: ['http', 'host', 'expose-agent-to-network', 'approve', ...MODEL, 'var', 'strict'],
    usage: `raf mcp serve <agent.yaml> [--http PORT] [--host HOST] [--approve ask|all|none]   (--host only with --http)
${INDENT}[--expose-agent-to-network]   (a --host other than this machine's loopback needs it)
${INDENT}[--model ID] [--base-url URL] [--mcp-config FILE] [--var k=v]… [--strict]`,
    requires: { host: 'http', 'expose-agent-to-network': 'host' },
    most: 1,
  },
  'mcp login': {
    synopsis: 'mcp login <agent.yaml> <server>',
    summary:
      "an OAuth login to one of the agent's MCP servers (connection: {kind: oauth}); tokens kept in the store",
    options: ['store', 'open', 'var'],
    usage: `raf mcp login <agent.yaml> <server> [--store URL] [--open] [--var k=v]…
${INDENT}(prints the authorization URL and waits for the redirect on 127.0.0.1; --open opens an https one)`,
    most: 2,
  },
  'mcp logout': {
    synopsis: 'mcp logout <agent.yaml> <server>',
    summary: "forgets the OAuth tokens of one of the agent's MCP servers",
    options: ['store', 'var'],
    usage: 'raf mcp logout <agent.yaml> <server> [--store URL] [--var k=v]…',
    most: 2,
  },
};

/** The command the words name (`mcp serve` before `mcp`), and how many words name it. */
export function commandOf(
  positionals: readonly string[],
): { name: string; spec: CommandSpec; words: number } | undefined {
  const [first, second] = positionals;
  if (first === undefined) return undefined;
  for (const [name, words] of [
    [`${first} ${second}`, 2],
    [first, 1],
  ] as const) {
    // Own keys only: `raf constructor` is no command.
    const spec = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (spec) return { name, spec, words };
  }
  return undefined;
}

const EXIT_CODES =
  'Exit codes: 0 done, 2 bad config or usage, 3 paused for approval or input, 4 model/provider failure, 5 session conflict (still in use after the wait, saved by another turn, already resumed; a locked store), 130 interrupted.';

export const USAGE = `raf — run declarative RAF agents

Commands:
${Object.values(COMMANDS)
  .map((c) => `  ${c.synopsis.padEnd(22)}  ${c.summary}`)
  .join('\n')}

Usage:
${Object.values(COMMANDS)
  .map((c) => `  ${c.usage}`)
  .join('\n')}
  raf --version | -V
  raf --help | -h       (raf COMMAND --help: that command's options)

${EXIT_CODES}
Environment: RAF_MODEL overrides the YAML's model id; OPENAI_BASE_URL, OPENAI_API_KEY, DEEPSEEK_API_KEY, …
fill only what the YAML leaves empty, for their own provider.
`;

/**
 * `raf <command> --help`: that command's usage (for `raf mcp --help`, each `mcp …` command's);
 * the whole `USAGE` for anything else.
 */
export function usageOf(positionals: readonly string[]): string {
  const found = commandOf(positionals);
  const specs = found
    ? [found.spec]
    : Object.entries(COMMANDS)
        .filter(([name]) => positionals[0] !== undefined && name.startsWith(`${positionals[0]} `))
        .map(([, spec]) => spec);
  if (specs.length === 0) return USAGE;
  return `${specs.map((s) => `raf ${s.synopsis} — ${s.summary}\n`).join('')}
Usage:
${specs.map((s) => `  ${s.usage}\n`).join('')}
${specs.length === 1 && specs[0]?.exits ? specs[0].exits : EXIT_CODES}
raf --help lists every command.
`;
}
