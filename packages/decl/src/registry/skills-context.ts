import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ConfigError, type Declaration, type PluginBuildContext } from '@raf/core';
import { AgentSkillsProvider } from '@raf/framework';
import { configOf, setting } from './declaration-config.js';

// `kind: skills`: loaded by the core plugin when a file declares one.

/** A missing folder is skipped with a warning, as upstream; an error only in strict mode. */
export async function skills(decl: Declaration, context: PluginBuildContext) {
  const directory = setting(configOf(decl), 'directory') ?? `skills/${decl.name ?? 'skills'}`;
  const path = resolve(context.baseDir, String(directory));
  const info = await stat(path).catch(() => undefined);
  if (!info?.isDirectory()) {
    const message = `${path}: the skills folder does not exist`;
    if (context.strict) throw new ConfigError(message);
    context.warn(`${message}; the skills provider is skipped`);
    return undefined;
  }
  // Its SKILL.md files become instructions and its resources tool results: the model must not
  // rewrite them through the file tools or a sandboxed command.
  context.protect?.([{ path, reason: 'skills folder', readable: true }]);
  // A skill behind a link is skipped (links are not followed); the user is told, as for a
  // missing folder: a warning, an error in strict mode.
  return AgentSkillsProvider.scan(path, {
    ...(context.signal ? { signal: context.signal } : {}),
    onWarning: (message) => {
      if (context.strict) throw new ConfigError(message);
      context.warn(message);
    },
  });
}
