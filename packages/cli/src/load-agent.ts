import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { RafPlugin } from '@raf/core';
import { DeclAgentBuilder, EXTENSION_PACKAGES } from '@raf/decl';
import type { CliArgs } from './args.js';
import type { CliIO } from './io.js';

/** Extensions whose plugins hold resources (MCP servers): closed when the command ends. */
const opened = new Set<{ close(): Promise<void> }>();

/** Stops what the extensions started (MCP servers) for this command. */
export async function closeExtensions(): Promise<void> {
  const closing = [...opened];
  opened.clear();
  await Promise.all(closing.map((plugin) => plugin.close().catch(() => undefined)));
}

function closable(plugin: RafPlugin): plugin is RafPlugin & { close(): Promise<void> } {
  return typeof (plugin as { close?: unknown }).close === 'function';
}

/**
 * The installed `@raf/*` extensions (SPEC §2: the CLI registers them) whose kinds the file
 * mentions: a package is imported only for a file that may use it, so a CLI with every
 * extension installed starts as fast as one with none.
 */
async function installedPlugins(text: string): Promise<RafPlugin[]> {
  const packages = new Map<string, { plugin: string; kinds: string[] }>();
  for (const [kind, { package: name, plugin }] of Object.entries(EXTENSION_PACKAGES)) {
    const entry = packages.get(name) ?? { plugin, kinds: [] };
    entry.kinds.push(kind);
    packages.set(name, entry);
  }
  const plugins: RafPlugin[] = [];
  for (const [name, { plugin, kinds }] of packages) {
    if (!kinds.some((kind) => new RegExp(`\\b${kind}\\b`).test(text))) continue;
    try {
      // Resolving first is cheap; a failed dynamic import of a missing package is not.
      import.meta.resolve(name);
    } catch {
      continue;
    }
    try {
      const module = (await import(name)) as Record<string, unknown>;
      const factory = module[plugin];
      if (typeof factory !== 'function') continue;
      const made = (factory as () => RafPlugin)();
      if (closable(made)) opened.add(made);
      plugins.push(made);
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
  // An unreadable file is reported by the builder, with the other problems.
  const text = await readFile(path, 'utf8').catch(() => '');
  for (const plugin of await installedPlugins(text)) builder.use(plugin);
  const id = args.model ?? io.env.RAF_MODEL;
  const baseURL = args.baseURL;
  builder.withModel({ ...(id && { id }), ...(baseURL && { baseURL }) });
  builder.withVariables(args.variables);
  return builder;
}
