import type { RafPlugin, ToolManifest } from '@raf/core';
import { installedExtensions } from '@raf/decl';

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
 * extension installed starts as fast as one with none. Looked up from the CLI first (a global
 * `raf` ships its own extensions), then in the agent's project.
 */
export async function installedPlugins(text: string, projectFolder: string): Promise<RafPlugin[]> {
  const plugins = await installedExtensions(text, projectFolder, {
    resolveHere: (name) => import.meta.resolve(name),
  });
  for (const plugin of plugins) if (closable(plugin)) opened.add(plugin);
  return plugins;
}

/**
 * The tool manifests of every installed extension (`web_search`, `code_interpreter`, …): what the
 * global catalogs (`raf tools list`, the studio's Tools page) show beside the framework's own.
 */
export async function installedToolManifests(projectFolder: string): Promise<Record<string, ToolManifest>> {
  const manifests: Record<string, ToolManifest> = {};
  const plugins = await installedExtensions(undefined, projectFolder, {
    resolveHere: (name) => import.meta.resolve(name),
  });
  for (const plugin of plugins) {
    Object.assign(manifests, plugin.toolManifests);
    // Made only to be read: nothing of it runs (an MCP plugin starts its servers on first build).
    if (closable(plugin)) await plugin.close().catch(() => undefined);
  }
  return manifests;
}
