import { describeZodIssues } from '@raf/core';
import { onFirstUse } from '@raf/core/internal';
import * as z from 'zod';
import type { RunState } from '../engine/run-state.js';
import { safeParseRunState } from '../engine/run-state.js';
import { WorkflowError } from '../errors.js';

/** A run's state after one superstep. */
export interface Checkpoint {
  id: string;
  runId: string;
  step: number;
  fingerprint: string;
  /** The checkpoint this run continued from (undefined for the first one of a run). */
  parentId?: string;
  createdAt: string;
  state: RunState;
}

/** A listing entry: a checkpoint without its state. */
export interface CheckpointInfo {
  id: string;
  runId: string;
  step: number;
  fingerprint: string;
  parentId?: string;
  createdAt: string;
  byteSize: number;
}

export interface CheckpointStoreOptions {
  signal?: AbortSignal;
}

/**
 * Where checkpoints live. `load` without an id returns the run's newest checkpoint. Ids sort in
 * the order checkpoints were taken.
 */
export interface CheckpointStore {
  save(checkpoint: Checkpoint, options?: CheckpointStoreOptions): Promise<void>;
  load(
    runId: string,
    checkpointId?: string,
    options?: CheckpointStoreOptions,
  ): Promise<Checkpoint | undefined>;
  /** Oldest first. */
  list(runId: string, options?: CheckpointStoreOptions): Promise<CheckpointInfo[]>;
  /** Keeps the newest `keep` checkpoints of the run; returns how many were deleted. */
  prune(runId: string, keep: number, options?: CheckpointStoreOptions): Promise<number>;
  /** Removes every checkpoint of the run. */
  delete(runId: string, options?: CheckpointStoreOptions): Promise<void>;
  /** Runs with at least one checkpoint. */
  runs(options?: CheckpointStoreOptions): Promise<string[]>;
}

let counter = 0;

/** `s00000042-…`: sorts by step, then by time, and is unique within the process and across them. */
export function checkpointId(step: number): string {
  counter = (counter + 1) % 0x10000;
  const time = Date.now().toString(36).padStart(9, '0');
  const tail = `${counter.toString(36).padStart(4, '0')}${Math.floor(Math.random() * 0x1000000).toString(36)}`;
  return `s${String(step).padStart(8, '0')}-${time}${tail}`;
}

export function infoOf(checkpoint: Checkpoint, byteSize: number): CheckpointInfo {
  const { state: _state, ...info } = checkpoint;
  return { ...info, byteSize };
}

const checkpointEnvelope = onFirstUse(() =>
  z.object({
    id: z.string(),
    runId: z.string(),
    step: z.number().int(),
    fingerprint: z.string(),
    parentId: z.string().optional(),
    createdAt: z.string(),
    state: z.unknown(),
  }),
);

/** A checkpoint read back from a file or a row: JSON text checked field by field; `source` names it in errors. */
export function parseCheckpoint(text: string, source: string): Checkpoint {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WorkflowError(
      'corrupt-checkpoint',
      `${source} is not valid JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const envelope = checkpointEnvelope().safeParse(value);
  if (!envelope.success)
    throw new WorkflowError('corrupt-checkpoint', `${source}: ${describeZodIssues(envelope.error)}`);
  const state = safeParseRunState(envelope.data.state);
  if (!state.success) throw new WorkflowError('corrupt-checkpoint', `${source}: state: ${state.error}`);
  const { parentId, ...rest } = envelope.data;
  return { ...rest, ...(parentId !== undefined && { parentId }), state: state.data };
}
