import type { JSONValue } from '@raf/core';

export type ActionObject = Record<string, unknown>;

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A field in either spelling (`externalLoop` / `external_loop`): its value and the key as written. */
export function field(
  action: ActionObject | undefined,
  ...names: string[]
): { value: unknown; key: string } | undefined {
  if (!action) return undefined;
  for (const name of names) {
    for (const key of [name, snake(name)]) if (Object.hasOwn(action, key)) return { value: action[key], key };
  }
  return undefined;
}

export const value = (action: ActionObject | undefined, ...names: string[]): unknown =>
  field(action, ...names)?.value;

export const asObject = (v: unknown): ActionObject | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as ActionObject) : undefined;

export const asString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export const asJson = (v: unknown): JSONValue => (v === undefined ? null : (v as JSONValue));
