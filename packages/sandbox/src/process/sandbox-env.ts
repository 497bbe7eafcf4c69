export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The code's whole environment: a fixed allowlist (nothing of the host's but `TZ`), then the
 * config's `env:` — values the YAML names explicitly. No inherited variable (`OPENAI_API_KEY`,
 * `GITHUB_TOKEN`, …) can carry a credential in.
 */
export function sandboxEnvironment(options: {
  home: string;
  path: string;
  host: Readonly<Record<string, string | undefined>>;
  explicit: Readonly<Record<string, string>>;
}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: options.path,
    HOME: options.home,
    TMPDIR: options.home,
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONIOENCODING: 'utf-8',
  };
  if (options.host.TZ !== undefined) env.TZ = options.host.TZ;
  return { ...env, ...options.explicit };
}
