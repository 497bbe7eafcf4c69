import { resolve } from 'node:path';
import type { RafPlugin } from '@raf/core';
import { DeclAgentBuilder, EXTENSION_PACKAGES, loadDefinitionFromFile } from '@raf/decl';
import type { CliArgs } from './args.js';
import type { CliIO } from './io.js';

/**
 * The kinds and model provider a file names. Undefined when the file does not load: then every
 * installed extension is registered, so the errors read as they would with all of them.
 */
async function kindsIn(path: string, env: CliIO['env']): Promise<Set<string> | undefined> {
  const loaded = await loadDefinitionFromFile(path, { env }).catch(() => undefined);
  const definition = loaded?.definition ?? loaded?.partial;
  if (!definition) return undefined;
  return new Set(
    [
      ...definition.tools.map((t) => t?.kind),
      ...definition.contexts.map((c) => c?.kind),
      definition.model?.provider,
    ].filter((kind): kind is string => typeof kind === 'string'),
  );
}

/**
 * The installed `@raf/*` extensions that export a plugin factory (SPEC §2: the CLI registers
 * them), limited to those whose kinds the file uses: importing an extension costs start-up time
 * (its own copies of zod and @raf/core), which a file that never uses it should not pay.
 */
async function installedPlugins(kinds: Set<string> | undefined): Promise<RafPlugin[]> {
  const plugins: RafPlugin[] = [];
  const seen = new Set<string>();
  for (const [kind, { package: name, plugin }] of Object.entries(EXTENSION_PACKAGES)) {
    if (seen.has(name) || (kinds && !kinds.has(kind))) continue;
    seen.add(name);
    try {
      // Resolving first is cheap; a failed dynamic import of a missing package is not.
      import.meta.resolve(name);
    } catch {
      continue;
    }
    try {
      const module = (await import(name)) as Record<string, unknown>;
      const factory = module[plugin];
      if (typeof factory === 'function') plugins.push((factory as () => RafPlugin)());
    } catch {
      // installed but broken: the YAML that needs it reports the missing kind
    }
  }
  return plugins;
}

/**
 * A builder for the file, with the installed extensions and the model overrides: `--model` (or
 * `RAF_MODEL`) and `--base-url` beat the file. Provider variables (`OPENAI_BASE_URL`,
 * `OPENAI_API_KEY`, `DEEPSEEK_API_KEY`, …) reach the builder as its environment and fill only what
 * the file leaves empty, for their own provider.
 */
export async function builderFor(file: string, args: CliArgs, io: CliIO): Promise<DeclAgentBuilder> {
  const path = resolve(io.cwd, file);
  const builder = new DeclAgentBuilder().fromFile(path).withEnvironment(io.env).strictMode(args.strict);
  for (const plugin of await installedPlugins(await kindsIn(path, io.env))) builder.use(plugin);
  const id = args.model ?? io.env.RAF_MODEL;
  const baseURL = args.baseURL;
  builder.withModel({ ...(id && { id }), ...(baseURL && { baseURL }) });
  builder.withVariables(args.variables);
  return builder;
}
