// A fixed per-request CPU cost for ./benchmark.sh --calibrate: the known answer the statistics
// are checked against. BENCH_EXTRA_WORK=N makes every request first run N iterations of a
// small integer loop; unset (the default), nothing changes. The harness sizes N from the
// app's own cost per request and refuses the variable in every other run.

/** The environment variable; its value is a whole number of loop iterations. */
export const EXTRA_WORK_ENV = "BENCH_EXTRA_WORK";

let sink = 0;

/** N iterations of a linear congruential step: cheap, fixed, and not optimized away. */
export function spin(iterations: number): number {
  let x = sink | 0;
  for (let i = 0; i < iterations; i++) x = (Math.imul(x, 1103515245) + 12345) | 0;
  sink = x;
  return x;
}

/**
 * The iterations asked for; undefined when the variable is unset or empty (not a calibration
 * run). A value that is not a whole number ≥ 0 is an error.
 */
export function extraWork(value: string | undefined): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new Error(`${EXTRA_WORK_ENV} must be a whole number of iterations, got "${value}"`);
  }
  return n;
}

/**
 * `handler` with the extra work in front of it; `handler` itself outside a calibration run.
 * Every row of a calibration is wrapped alike, 0 iterations included, so the rows differ by
 * the loop's iterations alone, not by the wrapper.
 */
export function withExtraWork<A extends unknown[], R>(
  iterations: number | undefined,
  handler: (...args: A) => R,
): (...args: A) => R {
  if (iterations === undefined) return handler;
  return (...args: A) => {
    spin(iterations);
    return handler(...args);
  };
}

/** ns per iteration of spin(), timed here: `bun extra-work.ts` prints it (the harness's sizing). */
if (import.meta.main) {
  spin(5_000_000);
  const n = 50_000_000;
  const start = performance.now();
  spin(n);
  console.log(((performance.now() - start) * 1e6) / n);
}
