import { LocalFsOperations } from './local-fs-operations.js';
import { LocalProcessOperations } from './local-process-operations.js';
import { LocalSearchOperations, type LocalSearchOptions } from './local-search-operations.js';
import type { ToolOperations } from './tool-operations.js';

export interface LocalToolOperationsOptions {
  search?: LocalSearchOptions;
  bubblewrapPath?: string;
}

/** The default backend of the built-in tools: this machine's disk, shell and search tools. */
export function createLocalToolOperations(options: LocalToolOperationsOptions = {}): ToolOperations {
  return {
    fs: new LocalFsOperations(),
    process: new LocalProcessOperations(
      options.bubblewrapPath === undefined ? {} : { bubblewrapPath: options.bubblewrapPath },
    ),
    search: new LocalSearchOperations(options.search),
  };
}

let shared: ToolOperations | undefined;

/** One shared local backend for tools built without an explicit one. */
export function defaultToolOperations(): ToolOperations {
  shared ??= createLocalToolOperations();
  return shared;
}
