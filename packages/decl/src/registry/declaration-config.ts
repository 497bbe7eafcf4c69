import type { Declaration, JSONValue } from '@raf/core';
import { snakeCase } from '../schema/normalize.js';

/** A declaration's `config:` block (empty when absent). */
export function configOf(decl: Declaration): Record<string, JSONValue> {
  return (decl.config ?? {}) as Record<string, JSONValue>;
}

/** Reads a config value under its camelCase or snake_case name. */
export function setting(config: Record<string, JSONValue>, camel: string): JSONValue | undefined {
  return config[camel] ?? config[snakeCase(camel)];
}
