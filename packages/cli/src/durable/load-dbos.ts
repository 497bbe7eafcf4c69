import { parseStoreUrl } from '@raf/core';
import { locateExtension } from '@raf/decl';
import type { CliArgs } from '../args.js';
import { CliError, type CliIO } from '../io.js';
import { importOptional } from '../optional-package.js';
import { storeChoice } from '../store-choice.js';

export type DbosPackage = typeof import('@raf/dbos');

/** `@raf/dbos`, looked for beside the CLI and in the project at `cwd` (an optional package). */
export function loadDbosPackage(what: string, io: CliIO): Promise<DbosPackage> {
  return importOptional(
    ['@raf/dbos', '@dbos-inc/dbos-sdk'],
    what,
    async () => {
      const url = locateExtension('@raf/dbos', io.cwd, (n) => import.meta.resolve(n));
      return (await (url ? import(url) : import('@raf/dbos'))) as DbosPackage;
    },
    io.cwd,
  );
}

/** The Postgres store durable runs live in (`--store`, else `RAF_STORE`). */
export function durableStore(args: CliArgs, io: CliIO, what: string): string {
  const { url } = storeChoice(args, io);
  if (parseStoreUrl(url).kind !== 'postgres')
    throw new CliError(`${what} needs a Postgres store: --store postgres://… (or RAF_STORE)`);
  return url;
}
