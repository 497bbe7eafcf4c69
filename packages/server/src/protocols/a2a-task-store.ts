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

/**
 * The A2A tasks of one served agent, in this replica's memory and in the run store: `tasks/get`
 * answers on any replica (a task another replica saved is read from the store). Listing stays
 * per replica. A task belongs to the tenant whose token made it (another tenant's: not found).
 */
export function storedTaskStore(runs: RunStore, agent: string): (memory: TaskStore) => TaskStore {
  const key = (taskId: string) => `${agent}/${taskId}`;
  const tenantOf = (context: Parameters<TaskStore['load']>[1]) => context.user?.userName ?? '';
  return (memory) => ({
    async save(task, context) {
      await memory.save(task, context);
      const tenant = tenantOf(context);
      if (tenant) await runs.saveTask(tenant, key(task.id), JSON.stringify(task));
    },
    async load(taskId, context) {
      const here = await memory.load(taskId, context);
      if (here) return here;
      const tenant = tenantOf(context);
      const text = tenant ? await runs.loadTask(tenant, key(taskId)) : undefined;
      if (text === undefined) return undefined;
      const parsed = storedTask.safeParse(JSON.parse(text));
      return parsed.success && parsed.data.id === taskId ? (parsed.data as unknown as Task) : undefined;
    },
    list: (params, context) => memory.list(params, context),
  });
}
