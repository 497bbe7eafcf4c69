const marker = 'raf.error';
const symbol = Symbol.for(marker);

/** Stable error codes. Codes never change meaning; new ones may be added. */
export type RafErrorCode =
  | 'RAF_CONFIG'
  | 'RAF_VALIDATION'
  | 'RAF_OUTPUT'
  | 'RAF_TOOL'
  | 'RAF_TOOL_FAILURE'
  | 'RAF_PATH_REJECTED'
  | 'RAF_PATH_CHANGED'
  | 'RAF_CHAT_CLIENT'
  | 'RAF_STREAM'
  | 'RAF_TIMEOUT'
  | 'RAF_CANCELLED'
  | 'RAF_APPROVAL'
  | 'RAF_SESSION'
  | 'RAF_SESSION_CONFLICT'
  | 'RAF_PLUGIN'
  | 'RAF_SCRIPT'
  | 'RAF_MEMORY'
  | 'RAF_WORKFLOW'
  | 'RAF_TOOL_SUSPENDED'
  | 'RAF_WORKER';

export interface RafErrorOptions {
  cause?: unknown;
}

/**
 * Base of every error RAF throws. The brand is a `Symbol.for` key so `isInstance` holds across
 * duplicated copies of the package in one process (where `instanceof` fails).
 */
export class RafError extends Error {
  private readonly [symbol] = true;
  readonly code: RafErrorCode;

  constructor(code: RafErrorCode, message: string, options: RafErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RafError';
    this.code = code;
  }

  static isInstance(error: unknown): error is RafError {
    return RafError.hasMarker(error, marker);
  }

  protected static hasMarker(error: unknown, key: string): boolean {
    return (
      error != null &&
      typeof error === 'object' &&
      (error as Record<symbol, unknown>)[Symbol.for(key)] === true
    );
  }

  /** A JSON-safe view (`{ code, message }`) for updates, logs and NDJSON output. */
  toJSON(): { name: string; code: RafErrorCode; message: string } {
    return { name: this.name, code: this.code, message: this.message };
  }
}

/** The message of anything thrown, without a stack. */
export function getErrorMessage(error: unknown): string {
  if (error == null) return 'unknown error';
  if (typeof error === 'string') return error;
  if (error instanceof Error) return error.message;
  try {
    return JSON.stringify(error);
  } catch {
    return String(error);
  }
}
