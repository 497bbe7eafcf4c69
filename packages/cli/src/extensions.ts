import type { RafPlugin, ToolManifest } from '@raf/core';
import { EXTENSION_PACKAGES, locateExtension } from '@raf/decl';

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
export async function installedPlugins(text: string, projectFolder: string): Promise<RafPlugin[]> {
  return loadInstalled(
    projectFolder,
    (kinds) => kinds.some((kind) => new RegExp(`\\b${kind}\\b`).test(text)),
    true,
  );
}

/**
 * The tool manifests of every installed extension (`web_search`, `code_interpreter`, …): what the
 * global catalogs (`raf tools list`, the studio's Tools page) show beside the framework's own.
 */
export async function installedToolManifests(projectFolder: string): Promise<Record<string, ToolManifest>> {
  const manifests: Record<string, ToolManifest> = {};
  for (const plugin of await loadInstalled(projectFolder, () => true, false)) {
    Object.assign(manifests, plugin.toolManifests);
    // Made only to be read: nothing of it runs (an MCP plugin starts its servers on first build).
    if (closable(plugin)) await plugin.close().catch(() => undefined);
  }
  return manifests;
}

async function loadInstalled(
  projectFolder: string,
  wanted: (kinds: readonly string[]) => boolean,
  keepOpen: boolean,
): Promise<RafPlugin[]> {
  const packages = new Map<string, { plugin: string; kinds: string[] }>();
  for (const [kind, { package: name, plugin }] of Object.entries(EXTENSION_PACKAGES)) {
    const entry = packages.get(name) ?? { plugin, kinds: [] };
    entry.kinds.push(kind);
    packages.set(name, entry);
  }
  const plugins: RafPlugin[] = [];
  for (const [name, { plugin, kinds }] of packages) {
    if (!wanted(kinds)) continue;
    // Looked up from the CLI first: a global `raf` ships its own extensions.
    const url = locateExtension(name, projectFolder, (n) => import.meta.resolve(n));
    if (!url) continue;
    try {
      const module = (await import(url)) as Record<string, unknown>;
      const factory = module[plugin];
      if (typeof factory !== 'function') continue;
      const made = (factory as () => RafPlugin)();
      if (keepOpen && closable(made)) opened.add(made);
      plugins.push(made);
    } catch {
      // installed but broken: the YAML that needs it reports the missing kind
    }
  }
  return plugins;
}
