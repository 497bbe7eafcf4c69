import type { JSONValue, RafPlugin } from '@raf/core';
import { locateExtension } from './locate-extension.js';
import { EXTENSION_PACKAGES } from './plugin-registry.js';

export { locateExtension } from './locate-extension.js';

/**
 * An extension package's plugin, by package name (`@raf/web` → `webPlugin(options)`): what a
 * worker process registers to make a sub-agent the way its parent did, with the options the
 * parent's plugin was made with. Undefined when the package is not installed or exports no plugin.
 */
export async function loadExtension(
  name: string,
  projectFolder: string,
  options?: JSONValue,
): Promise<RafPlugin | undefined> {
  const url = locateExtension(name, projectFolder);
  if (!url) return undefined;
  const module = (await import(url)) as Record<string, unknown>;
  const known = Object.values(EXTENSION_PACKAGES).find((e) => e.package === name)?.plugin;
  const exported = known ?? Object.keys(module).find((key) => key.endsWith('Plugin'));
  const factory = exported ? module[exported] : undefined;
  if (typeof factory !== 'function') return undefined;
  const make = factory as (options?: JSONValue) => RafPlugin;
  return options === undefined ? make() : make(options);
}

/**
 * The installed `@raf/*` extensions whose kinds `text` (an agent file, or its definition as JSON)
 * mentions (every installed one when `text` is undefined), each made with its plugin factory: a
 * package is imported only for a file that may use it. `skip` names packages already registered. Looked up where `resolveHere` finds packages
 * (default: from this module), then in the agent's project. An extension that fails to load is
 * left out: the kind that needs it then reports it.
 */
export async function installedExtensions(
  text: string | undefined,
  projectFolder: string,
  options: { skip?: readonly string[]; resolveHere?: (name: string) => string } = {},
): Promise<RafPlugin[]> {
  const packages = new Map<string, { plugin: string; kinds: string[] }>();
  for (const [kind, { package: name, plugin }] of Object.entries(EXTENSION_PACKAGES)) {
    const entry = packages.get(name) ?? { plugin, kinds: [] };
    entry.kinds.push(kind);
    packages.set(name, entry);
  }
  const plugins: RafPlugin[] = [];
  for (const [name, { plugin, kinds }] of packages) {
    if (options.skip?.includes(name)) continue;
    if (text !== undefined && !kinds.some((kind) => new RegExp(`\\b${kind}\\b`).test(text))) continue;
    const url = locateExtension(name, projectFolder, options.resolveHere);
    if (!url) continue;
    try {
      const module = (await import(url)) as Record<string, unknown>;
      const factory = module[plugin];
      if (typeof factory === 'function') plugins.push((factory as () => RafPlugin)());
    } catch {
      // installed but broken: the YAML that needs it reports the missing kind
    }
  }
  return plugins;
}
