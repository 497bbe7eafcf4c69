import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RafPlugin } from '@raf/core';
import { EXTENSION_PACKAGES } from '@raf/decl';

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

type Exports = string | { import?: Exports; default?: Exports; '.'?: Exports } | undefined;

function importTarget(exports: Exports): string | undefined {
  if (typeof exports === 'string') return exports;
  if (!exports) return undefined;
  return importTarget(exports['.'] ?? exports.import ?? exports.default);
}

/**
 * The entry of `name` installed in `folder`'s project (its own or an enclosing `node_modules`):
 * a globally installed `raf` finds the extensions the agent's project installed.
 */
function resolveInProject(name: string, folder: string): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    const root = join(dir, 'node_modules', name);
    try {
      const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        exports?: Exports;
        main?: string;
      };
      const entry = importTarget(manifest.exports) ?? manifest.main;
      if (entry) return pathToFileURL(join(root, entry)).href;
    } catch {}
    if (dirname(dir) === dir) return undefined;
  }
}

/** Where `name` is installed: beside the CLI, or in the agent's project; undefined when nowhere. */
function locate(name: string, projectFolder: string): string | undefined {
  try {
    return import.meta.resolve(name);
  } catch {
    return resolveInProject(name, projectFolder);
  }
}

/**
 * The installed `@raf/*` extensions (SPEC §2: the CLI registers them) whose kinds the file
 * mentions: a package is imported only for a file that may use it, so a CLI with every
 * extension installed starts as fast as one with none.
 */
export async function installedPlugins(text: string, projectFolder: string): Promise<RafPlugin[]> {
  const packages = new Map<string, { plugin: string; kinds: string[] }>();
  for (const [kind, { package: name, plugin }] of Object.entries(EXTENSION_PACKAGES)) {
    const entry = packages.get(name) ?? { plugin, kinds: [] };
    entry.kinds.push(kind);
    packages.set(name, entry);
  }
  const plugins: RafPlugin[] = [];
  for (const [name, { plugin, kinds }] of packages) {
    if (!kinds.some((kind) => new RegExp(`\\b${kind}\\b`).test(text))) continue;
    const url = locate(name, projectFolder);
    if (!url) continue;
    try {
      const module = (await import(url)) as Record<string, unknown>;
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
