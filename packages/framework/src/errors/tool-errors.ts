import { RafError, type RafErrorOptions } from '@raf/core';

// Each class carries a `Symbol.for` brand, so `X.isInstance(e)` holds across duplicated copies of
// the package (and across packages) where `instanceof` fails.

const toolFailureKey = 'raf.error.ToolFailure';
const toolFailureSymbol = Symbol.for(toolFailureKey);
/** A business failure the model reads as `{ ok: false, error }` (not a framework error). */
export class ToolFailure extends RafError {
  private readonly [toolFailureSymbol] = true;
  constructor(message: string, options?: RafErrorOptions) {
    super('RAF_TOOL_FAILURE', message, options);
    this.name = 'ToolFailure';
  }
  static override isInstance(error: unknown): error is ToolFailure {
    return RafError.hasMarker(error, toolFailureKey);
  }
}

const pathRejectedKey = 'raf.error.PathRejectedError';
const pathRejectedSymbol = Symbol.for(pathRejectedKey);
/** Input the path guard refuses whatever the policy: the tool answers with this message. */
export class PathRejectedError extends RafError {
  private readonly [pathRejectedSymbol] = true;
  constructor(message: string, options?: RafErrorOptions) {
    super('RAF_PATH_REJECTED', message, options);
    this.name = 'PathRejectedError';
  }
  static override isInstance(error: unknown): error is PathRejectedError {
    return RafError.hasMarker(error, pathRejectedKey);
  }
}

const pathChangedKey = 'raf.error.PathChangedError';
const pathChangedSymbol = Symbol.for(pathChangedKey);
/** A checked path changed (a folder on the way became a link) before it was used; nothing was done. */
export class PathChangedError extends RafError {
  private readonly [pathChangedSymbol] = true;
  constructor(path: string, options?: RafErrorOptions) {
    super(
      'RAF_PATH_CHANGED',
      `'${path}' changed while in use (a folder on the way became a symbolic link); nothing was done`,
      options,
    );
    this.name = 'PathChangedError';
  }
  static override isInstance(error: unknown): error is PathChangedError {
    return RafError.hasMarker(error, pathChangedKey);
  }
}
