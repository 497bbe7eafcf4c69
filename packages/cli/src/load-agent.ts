import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { DeclAgentBuilder, type Diagnostic, formatDiagnostic } from '@raf/decl';
import type { CliArgs } from './args.js';
import { demoTools } from './demo-tools.js';
import { installedPlugins } from './extensions.js';
import type { CliIO } from './io.js';
import { escapeText } from './render/escape.js';
import { mcpCredentialsDir, storePaths } from './store-choice.js';
import { storeGovernance, storeSecrets } from './store-governance.js';

/**
 * A builder for the file, with the installed extensions and the model overrides: `--model` (or
 * `RAF_MODEL`) and `--base-url` beat the file. Provider variables (`OPENAI_BASE_URL`,
 * `OPENAI_API_KEY`, `DEEPSEEK_API_KEY`, …) reach the builder as its environment and fill only what
 * the file leaves empty, for their own provider.
 */
export async function builderFor(file: string, args: CliArgs, io: CliIO): Promise<DeclAgentBuilder> {
  const path = resolve(io.cwd, file);
  const credentials = mcpCredentialsDir(args, io);
  const builder = new DeclAgentBuilder()
    .fromFile(path)
    // `@raf/mcp` keeps OAuth tokens where this command's store is (`raf mcp login` writes them there).
    .withEnvironment({ ...io.env, RAF_MCP_CREDENTIALS: credentials })
    // Every command refuses what `raf validate` refuses: an unknown or misplaced key is an error
    // in run, chat, inspect, studio and mcp serve too (a misplaced `approval_mode` must not run
    // the tools without asking). Only `raf validate --lenient` lowers unknown keys to warnings
    // (never security-relevant ones); `--strict` makes missing folders errors as well.
    .strictMode(args.strict ? true : { unknownKeys: !args.lenient })
    // The model must not read or rewrite its own sessions (nor, protected by the builder, its YAML).
    .protectPaths(storePaths(args, io), 'sessions')
    .protectPaths([credentials], 'MCP OAuth tokens');
  // A store chosen by URL keeps the governance too (what `raf tools --store` edits).
  const governance = storeGovernance(args, io);
  if (governance !== undefined) builder.withGovernance(governance);
  // A SQLite or Postgres store keeps MCP OAuth tokens too (`raf mcp login --store` put them there).
  const secrets = storeSecrets(args, io);
  if (secrets) builder.withSecrets(secrets);
  // An unreadable file is reported by the builder, with the other problems.
  const text = await readFile(path, 'utf8').catch(() => '');
  for (const plugin of await installedPlugins(text, dirname(path))) builder.use(plugin);
  // Used only by a file that declares `kind: function` tools of these names (the upstream CLI's).
  for (const tool of demoTools()) builder.registerFactory(tool.name, () => tool);
  const id = args.model ?? io.env.RAF_MODEL;
  const baseURL = args.baseURL;
  builder.withModel({ ...(id && { id }), ...(baseURL && { baseURL }) });
  builder.withVariables(args.variables);
  if (args.mcpConfig) builder.withMcpConfig(resolve(io.cwd, args.mcpConfig));
  return builder;
}

/** Shows diagnostics under the file name the user typed (one of `typed`). */
export function asTyped(
  diagnostics: readonly Diagnostic[],
  typed: string | readonly string[],
  cwd: string,
): Diagnostic[] {
  const names = new Map((typeof typed === 'string' ? [typed] : typed).map((t) => [resolve(cwd, t), t]));
  return diagnostics.map((d) => {
    const name = names.get(d.file);
    return name === undefined ? d : { ...d, file: name };
  });
}

/**
 * Prints the file's warnings on stderr (never stdout: `--json` output stays NDJSON), under the
 * name the user typed: `raf run` and `raf chat` say what `raf validate` would have.
 */
export function warnOnStderr(file: string, io: CliIO): (warnings: Diagnostic[]) => void {
  return (warnings) => {
    for (const d of asTyped(warnings, file, io.cwd))
      io.stderr.write(`warning: ${escapeText(formatDiagnostic(d))}\n`);
  };
}
