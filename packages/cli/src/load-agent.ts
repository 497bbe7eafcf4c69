import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { RafPlugin } from '@raf/core';
import { DeclAgentBuilder, EXTENSION_PACKAGES } from '@raf/decl';
import type { CliArgs } from './args.js';
import type { CliIO } from './io.js';

/**
 * Every installed `@raf/*` extension that exports a plugin factory (SPEC §2: the CLI registers
 * them) — of those whose kind the agent file mentions at all: an extension's import costs start-up
 * time (`raf validate` on a file-tools agent never loads the web stack). A word match is enough;
 * a false one only loads a package for nothing.
 */
async function installedPlugins(source: string | undefined): Promise<RafPlugin[]> {
  const plugins: RafPlugin[] = [];
  const seen = new Set<string>();
  for (const [kind, { package: name, plugin }] of Object.entries(EXTENSION_PACKAGES)) {
    if (seen.has(name) || (source !== undefined && !new RegExp(`\\b${kind}\\b`).test(source))) continue;
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
  const builder = new DeclAgentBuilder()
    .fromFile(path)
    .withEnvironment(io.env)
    .strictMode(args.strict)
    // The model must not read or rewrite its own sessions (nor, protected by the builder, its YAML).
    .protectPaths([resolve(io.cwd, args.sessionsDir)], 'sessions');
  const source = await readFile(path, 'utf8').catch(() => undefined);
  for (const plugin of await installedPlugins(source)) builder.use(plugin);
  const id = args.model ?? io.env.RAF_MODEL;
  const baseURL = args.baseURL;
  builder.withModel({ ...(id && { id }), ...(baseURL && { baseURL }) });
  builder.withVariables(args.variables);
  return builder;
}
