import type { JSONValue } from '@raf/core';
import type { WorkflowState } from '../graph/graph-types.js';

/** The variables of a run over the plain record a checkpoint stores. */
export class RecordState implements WorkflowState {
  constructor(private readonly record: Record<string, JSONValue>) {}

  get(key: string): JSONValue | undefined {
    return Object.hasOwn(this.record, key) ? this.record[key] : undefined;
  }

  set(key: string, value: JSONValue): void {
    // An own property even for `__proto__` (an assignment would replace the record's prototype).
    Object.defineProperty(this.record, key, { value, writable: true, enumerable: true, configurable: true });
  }

  delete(key: string): void {
    delete this.record[key];
  }

  has(key: string): boolean {
    return Object.hasOwn(this.record, key);
  }

  keys(): string[] {
    return Object.keys(this.record);
  }
}
