import { parseArgs } from 'node:util';
import { CliError } from './io.js';

export const USAGE = `raf — run declarative RAF agents

Usage:
  raf run <agent.yaml> [-i TEXT | stdin] [--strict] [--session ID] [--sessions-dir DIR] [--var k=v]…
                       [--approve ask|all|none] [--json] [--model ID] [--base-url URL]
  raf chat <agent.yaml> [--session ID] [--sessions-dir DIR] [--var k=v]… [--model ID] [--base-url URL]
  raf validate <agent.yaml>… [--json] [--lenient]   (unknown keys are errors unless --lenient)
  raf inspect <agent.yaml> [--json]
  raf schema
  raf mcp serve <agent.yaml> [--http PORT] [--host HOST] [--approve ask|all|none]   (the agent as an MCP server)

Exit codes: 0 done, 2 bad config or usage, 3 paused for approval, 4 model/provider failure, 130 interrupted.
Environment: RAF_MODEL, OPENAI_BASE_URL, OPENAI_API_KEY override the YAML's model.
`;

const OPTIONS = {
  input: { type: 'string', short: 'i' },
  session: { type: 'string' },
  'sessions-dir': { type: 'string' },
  var: { type: 'string', multiple: true },
  approve: { type: 'string' },
  json: { type: 'boolean' },
  strict: { type: 'boolean' },
  lenient: { type: 'boolean' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  http: { type: 'string' },
  host: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface CliArgs {
  command: string | undefined;
  files: string[];
  input?: string;
  session?: string;
  sessionsDir: string;
  variables: Record<string, string>;
  approve: 'ask' | 'all' | 'none';
  json: boolean;
  strict: boolean;
  lenient: boolean;
  model?: string;
  baseURL?: string;
  /** `raf mcp serve --http PORT` (0: any free port). */
  httpPort?: number;
  host?: string;
  help: boolean;
}

export function parseCliArgs(argv: readonly string[]): CliArgs {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true; args: string[] }>
  >;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(`${(error as Error).message}\n\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  const approve = values.approve ?? 'ask';
  if (approve !== 'ask' && approve !== 'all' && approve !== 'none') {
    throw new CliError(`--approve must be ask, all or none (got "${approve}")`);
  }
  let httpPort: number | undefined;
  if (values.http !== undefined) {
    httpPort = Number(values.http);
    if (!/^\d+$/.test(values.http) || httpPort > 65535)
      throw new CliError(`--http expects a port number (got "${values.http}")`);
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
    ...(values.session !== undefined && { session: values.session }),
    sessionsDir: values['sessions-dir'] ?? '.raf/sessions',
    variables,
    approve,
    json: values.json ?? false,
    strict: values.strict ?? false,
    lenient: values.lenient ?? false,
    ...(values.model !== undefined && { model: values.model }),
    ...(values['base-url'] !== undefined && { baseURL: values['base-url'] }),
    ...(httpPort !== undefined && { httpPort }),
    ...(values.host !== undefined && { host: values.host }),
    help: values.help ?? false,
  };
}
