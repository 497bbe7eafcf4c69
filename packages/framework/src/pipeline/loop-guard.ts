import { toolFailure } from '@raf/core';
import type { PreparedCall } from './tool-executor.js';

/**
 * One round's distinct calls (tool name and arguments) and their streaks, side by side. A round
 * has a few calls, so they are compared in place: no key string and no map per round (this runs
 * every round of every run). A large round gets a map, so a batch of hundreds stays linear.
 */
class Round {
  readonly names: string[] = [];
  readonly args: string[] = [];
  readonly streaks: number[] = [];
  private index: Map<string, number> | undefined;

  /** Where the call is in this round, or -1. */
  find(name: string, args: string): number {
    const count = this.names.length;
    if (count > LINEAR_MAX) {
      if (!this.index) {
        this.index = new Map();
        for (let i = 0; i < count; i++) this.index.set(key(this.names[i]!, this.args[i]!), i);
      }
      return this.index.get(key(name, args)) ?? -1;
    }
    for (let i = 0; i < count; i++) if (this.names[i] === name && this.args[i] === args) return i;
    return -1;
  }

  /** Adds the call, or keeps the longer streak when it is in this round already. */
  note(name: string, args: string, streak: number): void {
    const at = this.find(name, args);
    if (at !== -1) {
      if (streak > this.streaks[at]!) this.streaks[at] = streak;
      return;
    }
    this.names.push(name);
    this.args.push(args);
    this.streaks.push(streak);
    this.index?.set(key(name, args), this.names.length - 1);
  }
}

const LINEAR_MAX = 16;
const key = (name: string, args: string) => `${name}\u0000${args}`;

/**
 * Stops a model that repeats the identical call (same tool, same arguments) round after round.
 * The call over the limit is not executed; its result says why, and the run ends.
 */
export class LoopGuard {
  private last = new Round();

  constructor(private readonly maxIdenticalCalls: number) {}

  /** Marks calls over the limit in place; returns a warning when it did. */
  check(prepared: PreparedCall[]): string | undefined {
    const last = this.last;
    const next = new Round();
    let warning: string | undefined;
    for (const item of prepared) {
      const { name, arguments: args } = item.call;
      const before = last.find(name, args);
      const streak = (before === -1 ? 0 : last.streaks[before]!) + 1;
      next.note(name, args, streak);
      if (streak > this.maxIdenticalCalls && !item.preset) {
        item.preset = toolFailure(
          `Loop guard: ${name} was called with identical arguments ${streak} times in a row; not executed`,
        );
        warning ??= `loop guard stopped the run: ${name} called with identical arguments ${streak} times in a row`;
      }
    }
    this.last = next;
    return warning;
  }
}
