export interface ResourceLimits {
  cpuSecs: number;
  addressSpaceBytes: number;
  processes: number;
  fileSizeBytes: number;
}

/**
 * The command prefix that sets the rlimits before the code starts: `prlimit` (util-linux) when
 * installed, else `ulimit` in a bash wrapper. CPU seconds, address space, processes, file size,
 * and no core dumps.
 */
export function limitArguments(limits: ResourceLimits, tools: { prlimit?: string; bash?: string }): string[] {
  const cpu = Math.max(1, Math.ceil(limits.cpuSecs));
  if (tools.prlimit) {
    return [
      tools.prlimit,
      `--cpu=${cpu}`,
      `--as=${limits.addressSpaceBytes}`,
      `--nproc=${limits.processes}`,
      `--fsize=${limits.fileSizeBytes}`,
      '--core=0',
      '--',
    ];
  }
  if (!tools.bash) throw new Error('neither prlimit nor bash is installed to set resource limits');
  // bash counts -v in KiB and -f in 1 KiB blocks (outside POSIX mode).
  const script = [
    `ulimit -t ${cpu}`,
    `ulimit -v ${Math.floor(limits.addressSpaceBytes / 1024)}`,
    `ulimit -u ${limits.processes}`,
    `ulimit -f ${Math.max(1, Math.floor(limits.fileSizeBytes / 1024))}`,
    'ulimit -c 0',
    'exec "$@"',
  ].join(' && ');
  return [tools.bash, '-c', script, 'limits'];
}
