import { resolve } from 'node:path';
import type { ToolManifest } from '@raf/core';
import {
  aliasesOf,
  BUILTIN_TOOL_MANIFESTS,
  canonicalToolName,
  DEFAULT_GOVERNANCE_FILE,
  FileGovernanceStore,
  profileRoute,
  ToolGovernance,
  WORKER_ROUTING_STRATEGIES,
  type WorkerRoutingStrategy,
} from '@raf/framework';
import type { CliArgs } from '../args.js';
import { installedToolManifests } from '../extensions.js';
import { CliError, type CliIO, EXIT } from '../io.js';
import { refuseWrongKind } from '../path-kind.js';
import { escapeJson, escapeLine } from '../render/escape.js';

const HELP =
  'raf tools list | enable NAME… | disable NAME… | route NAME STRATEGY | hint NAME [TEXT] | core NAME on|off';

/** One row of `raf tools list`: the catalog entry of a tool and its static profile. */
function rowOf(governance: ToolGovernance, manifests: Readonly<Record<string, ToolManifest>>, name: string) {
  const entry = governance.entry(name);
  const manifest = manifests[name];
  return {
    name,
    aliases: aliasesOf(name),
    kind: manifest?.kind ?? 'custom',
    enabled: entry.enabled,
    core: entry.core,
    workerRoutingStrategy: entry.workerRoutingStrategy,
    promptHint: entry.promptHint ?? null,
    profile: manifest ? profileRoute(manifest, entry) : null,
  };
}

function table(rows: ReturnType<typeof rowOf>[]): string {
  const lines = rows.map((r) =>
    [
      `${r.name}${r.aliases.length ? ` (${r.aliases.join(', ')})` : ''}`.padEnd(34),
      (r.enabled ? 'enabled' : 'disabled').padEnd(9),
      (r.core ? 'core' : '').padEnd(5),
      r.workerRoutingStrategy.padEnd(25),
      (r.profile ?? '-').padEnd(19),
      r.promptHint ?? '',
    ].join(' '),
  );
  const head = `${'tool'.padEnd(34)} ${'state'.padEnd(9)} ${'core'.padEnd(5)} ${'routing'.padEnd(25)} ${'profile'.padEnd(19)} hint`;
  return `${[head, ...lines].map(escapeLine).join('\n')}\n`;
}

/**
 * `raf tools …`: the global tool governance of the project (SPEC §7.1), kept in
 * `.raf/governance.json` (or `--governance FILE`). Agents read it before every run, so a change
 * applies to the next run without a rebuild.
 */
export async function toolsCommand(args: CliArgs, io: CliIO): Promise<number> {
  const [action = 'list', ...rest] = args.files;
  // What an action takes after its name at most; more would be dropped (`enable`, `disable`: any).
  const most = action === 'list' ? 0 : action === 'route' || action === 'core' ? 2 : undefined;
  const extra = most === undefined ? undefined : rest[most];
  if (extra !== undefined) throw new CliError(`raf tools ${action}: unexpected argument "${extra}"\n${HELP}`);
  if (args.governance)
    await refuseWrongKind('--governance', args.governance, io.cwd, { file: DEFAULT_GOVERNANCE_FILE });
  const file = resolve(io.cwd, args.governance ?? DEFAULT_GOVERNANCE_FILE);
  const store = new FileGovernanceStore(file);
  const governance = new ToolGovernance(await store.load());
  const names = (list: string[], what: string) => {
    if (list.length === 0) throw new CliError(`raf tools ${what} needs a tool name\n${HELP}`);
    return list.map((n) => canonicalToolName(n));
  };
  // The framework's tools and those of every installed extension (each keeps its own manifests).
  const manifests = { ...BUILTIN_TOOL_MANIFESTS, ...(await installedToolManifests(io.cwd)) };
  let done: string;
  switch (action) {
    case 'list': {
      const all = [...new Set([...Object.keys(manifests), ...governance.names()])].sort();
      const rows = all.map((name) => rowOf(governance, manifests, name));
      io.stdout.write(args.json ? `${escapeJson(JSON.stringify({ file, tools: rows }))}\n` : table(rows));
      return EXIT.ok;
    }
    case 'enable':
    case 'disable': {
      const list = names(rest, action);
      for (const name of list) governance.setEnabled(name, action === 'enable');
      done = `${action}d ${list.join(', ')}`;
      break;
    }
    case 'route': {
      const [name, strategy] = rest;
      if (!name || !strategy)
        throw new CliError(`raf tools route needs a tool and one of ${WORKER_ROUTING_STRATEGIES.join(', ')}`);
      governance.setRouting(name, strategy as WorkerRoutingStrategy);
      done = `routed ${canonicalToolName(name)}: ${strategy}`;
      break;
    }
    case 'hint': {
      const [name, ...words] = rest;
      const [tool] = names(name ? [name] : [], 'hint');
      const text = words.join(' ').trim();
      governance.setPromptHint(tool!, text || undefined);
      done = text ? `hint for ${tool}: ${text}` : `hint for ${tool} removed`;
      break;
    }
    case 'core': {
      const [name, value] = rest;
      const [tool] = names(name ? [name] : [], 'core');
      if (value !== 'on' && value !== 'off')
        throw new CliError('raf tools core needs on or off after the tool name');
      governance.setCore(tool!, value === 'on');
      done = `${tool} is ${value === 'on' ? 'now' : 'no longer'} a core tool`;
      break;
    }
    default:
      throw new CliError(`unknown raf tools action "${action}"\n${HELP}`);
  }
  await store.save(governance.data);
  const changed = [...new Set(rest.map((n) => canonicalToolName(n)))].filter((n) => governance.data.tools[n]);
  if (args.json) {
    io.stdout.write(
      `${escapeJson(JSON.stringify({ file, tools: changed.map((name) => rowOf(governance, manifests, name)) }))}\n`,
    );
  } else io.stdout.write(`${escapeLine(`${done} (${file})`)}\n`);
  return EXIT.ok;
}
