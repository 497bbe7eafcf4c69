// Stdio servers die with the agent: a process that exits without closing its connections
// (process.exit, an uncaught error) still takes its servers down.
const live = new Set<number>();
let listening = false;

function killAll(): void {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  live.clear();
}

export function trackChild(pid: number): void {
  live.add(pid);
  if (!listening) {
    listening = true;
    process.on('exit', killAll);
  }
}

export function untrackChild(pid: number): void {
  live.delete(pid);
}
