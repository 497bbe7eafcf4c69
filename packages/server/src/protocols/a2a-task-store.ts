import type { A2ATaskStore as TaskStore } from '@raf/a2a';
import { z } from 'zod';
import type { RunStore } from '../events/run-store.js';

// A task read back from the store is checked for what the handler relies on (its id, context and
// status); the rest is the SDK's own shape, kept as it was saved.
const storedTask = z.looseObject({
  id: z.string(),
  contextId: z.string(),
  status: z.looseObject({}).optional(),
});

type Task = Parameters<TaskStore['save']>[0];

/** A stored task's text as JSON; text that is not (a damaged row) reads as no task, not a 500. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `TASK_STATE_CANCELED` of the SDK's task states. */
const CANCELED = 5;

/**
 * The store key of the run a task's latest turn started. A task's own key always holds a `/`
 * (agent, then task id); this one never does (both parts URI-encoded), so no task id, however
 * chosen, can name it.
 */
export function taskRunKey(agent: string, taskId: string): string {
  return `run:${encodeURIComponent(agent)}:${encodeURIComponent(taskId)}`;
}

/**
 * The A2A tasks of one served agent, in this replica's memory and in the run store: `tasks/get`
 * answers on any replica (a task another replica saved is read from the store). Listing stays
 * per replica. A task belongs to the tenant whose token made it (another tenant's: not found).
 * `canceled` is told each task saved as cancelled: a `tasks/cancel` that reaches a replica other
 * than the one running the task is answered by the SDK alone (it only saves the new state), so
 * the run behind the task is cancelled from here.
 */
export function storedTaskStore(
  runs: RunStore,
  agent: string,
  canceled?: (taskId: string, tenant: string) => Promise<void>,
): (memory: TaskStore) => TaskStore {
  const key = (taskId: string) => `${agent}/${taskId}`;
  const tenantOf = (context: Parameters<TaskStore['load']>[1]) => context.user?.userName ?? '';
  return (memory) => ({
    async save(task, context) {
      await memory.save(task, context);
      const tenant = tenantOf(context);
      if (!tenant) return;
      await runs.saveTask(tenant, key(task.id), JSON.stringify(task));
      if (canceled && task.status?.state === CANCELED) await canceled(task.id, tenant);
    },
    async load(taskId, context) {
      // The store first: another replica may have saved a newer state (a task paused here and
      // cancelled there); this replica's memory holds only what it saved itself.
      const tenant = tenantOf(context);
      const text = tenant ? await runs.loadTask(tenant, key(taskId)) : undefined;
      if (text === undefined) return memory.load(taskId, context);
      const parsed = storedTask.safeParse(parseJson(text));
      return parsed.success && parsed.data.id === taskId ? (parsed.data as unknown as Task) : undefined;
    },
    list: (params, context) => memory.list(params, context),
  });
}
