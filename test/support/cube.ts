/** What Cube brings to the hook: the environment it runs in, and how each Cube line reads what `checkAuth` resolves to. */

/** Runs `body` with these variables set (undefined: unset) and every other CUBEJS_ and CUBE_DUAL_AUTH_ variable unset. */
export async function withEnv<T>(vars: Record<string, string | undefined>, body: () => T | Promise<T>): Promise<T> {
  const saved = process.env;
  process.env = Object.fromEntries(Object.entries(saved).filter(([name]) => !/^(CUBEJS_|CUBE_DUAL_AUTH_)/.test(name)));
  for (const [name, value] of Object.entries(vars)) if (value !== undefined) process.env[name] = value;
  try {
    return await body();
  } finally {
    process.env = saved;
  }
}

/** What each Cube line ends up with as the security context after checkAuth resolved to `resolved` (their gateways' own code). */
export function cubesContext(req: { securityContext?: unknown }, resolved: unknown): { '0.33': unknown; '1.7': unknown } {
  // 0.33.65 (wrapCheckAuth): `await fn(req, auth)`, the value ignored.
  const line033 = req.securityContext;
  // 1.7.43 (wrapCheckAuth): `if (result?.security_context) req.securityContext = result?.security_context`.
  const answer = resolved as { security_context?: unknown } | undefined;
  const line1 = answer?.security_context ? answer.security_context : req.securityContext;
  return { '0.33': line033, '1.7': line1 };
}
