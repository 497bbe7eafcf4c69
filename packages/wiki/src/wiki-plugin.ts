import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError, type Declaration, type PluginBuildContext, type RafPlugin } from '@raf/core';
import { symbolicLinkOnTheWay } from '@raf/framework';
import { type WikiConfig, wikiConfigSchema } from './config/wiki-config.js';
import { WikiContextProvider } from './provider/wiki-context-provider.js';

/** `kind: wiki` from YAML; a missing source or folder warns and skips, as the upstream does (errors in strict mode). */
async function wiki(
  decl: Declaration,
  context: PluginBuildContext,
): Promise<WikiContextProvider | undefined> {
  const config = (decl.config ?? {}) as WikiConfig;
  const name = decl.name ?? 'wiki';
  const skip = (message: string) => {
    if (context.strict) throw new ConfigError(message);
    context.warn(`${message}; it is skipped`);
    return undefined;
  };
  if (config.source === undefined) return skip(`wiki '${name}' has no config.source`);
  const root = resolve(context.baseDir, config.source);
  // The vault is opened through links (only what is below it is read link by link): a folder
  // replaced by a link to a private one would be served, so it is refused as a linked page is.
  const link = await symbolicLinkOnTheWay(context.baseDir, config.source);
  if (link !== undefined)
    return skip(`wiki '${name}': ${link} is a symbolic link (not followed); the wiki is not loaded`);
  const info = await stat(root).catch(() => undefined);
  if (!info?.isDirectory()) return skip(`wiki '${name}': the folder ${root} does not exist`);
  return new WikiContextProvider({
    root,
    name,
    ...(config.writable !== undefined && { writable: config.writable }),
    ...(config.topK !== undefined && { topK: config.topK }),
    ...(config.watch !== undefined && { watch: config.watch }),
    ...(context.dryRun && { dryRun: true }),
  });
}

/** Registers `kind: wiki`: `new DeclAgentBuilder().use(wikiPlugin())`. */
export function wikiPlugin(): RafPlugin {
  return {
    specificationVersion: 'v1',
    packageName: '@raf/wiki',
    contextKinds: { wiki },
    configSchemas: { contexts: { wiki: wikiConfigSchema } },
  };
}
