import { type Checkpoint, type CheckpointInfo, type CheckpointStore, infoOf } from './checkpoint-store.js';

/** Checkpoints in this process, serialized so later changes to a run cannot reach them. */
export class InMemoryCheckpointStore implements CheckpointStore {
  private readonly runsById = new Map<string, Map<string, string>>();

  async save(checkpoint: Checkpoint): Promise<void> {
    const run = this.runsById.get(checkpoint.runId) ?? new Map<string, string>();
    run.set(checkpoint.id, JSON.stringify(checkpoint));
    this.runsById.set(checkpoint.runId, run);
  }

  async load(runId: string, checkpointId?: string): Promise<Checkpoint | undefined> {
    const run = this.runsById.get(runId);
    if (!run) return undefined;
    const id = checkpointId ?? [...run.keys()].sort().at(-1);
    const text = id === undefined ? undefined : run.get(id);
    return text === undefined ? undefined : (JSON.parse(text) as Checkpoint);
  }

  async list(runId: string): Promise<CheckpointInfo[]> {
    const run = this.runsById.get(runId);
    if (!run) return [];
    return [...run.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, text]) => infoOf(JSON.parse(text) as Checkpoint, Buffer.byteLength(text)));
  }

  async prune(runId: string, keep: number): Promise<number> {
    const run = this.runsById.get(runId);
    if (!run) return 0;
    const doomed = [...run.keys()].sort().slice(0, Math.max(0, run.size - keep));
    for (const id of doomed) run.delete(id);
    return doomed.length;
  }

  async delete(runId: string): Promise<void> {
    this.runsById.delete(runId);
  }

  async runs(): Promise<string[]> {
    return [...this.runsById.keys()];
  }
}
