// A fixed-window rate limiter in memory: `max` hits per client per window, the window starting
// at the client's first hit. Memory stays bounded without a timer or a sweep: the entries live in
// two generations, and every `windowMs` the older generation is dropped whole. An entry is only
// ever dropped once it has expired (it sat a full generation untouched); a client seen again
// before that is moved to the current one.

interface Window {
  count: number;
  /** When the window ends (ms since the epoch). */
  readonly resetAt: number;
}

export class FixedWindowLimiter {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  #current = new Map<string, Window>();
  #previous = new Map<string, Window>();
  #rotateAt: number;

  constructor(max: number, windowMs: number, now: () => number = Date.now) {
    this.#max = max;
    this.#windowMs = windowMs;
    this.#now = now;
    this.#rotateAt = now() + windowMs;
  }

  /** Counts a hit for `key`: 0 when it is allowed, else the whole seconds until it would be. */
  hit(key: string): number {
    const now = this.#now();
    if (now >= this.#rotateAt) {
      this.#previous = this.#current;
      this.#current = new Map();
      this.#rotateAt = now + this.#windowMs;
    }
    let window = this.#current.get(key);
    if (window === undefined) {
      window = this.#previous.get(key);
      if (window !== undefined) {
        this.#previous.delete(key);
        this.#current.set(key, window);
      }
    }
    if (window === undefined || now >= window.resetAt) {
      window = { count: 0, resetAt: now + this.#windowMs };
      this.#current.set(key, window);
    }
    if (window.count < this.#max) {
      window.count++;
      return 0;
    }
    return Math.max(1, Math.ceil((window.resetAt - now) / 1000));
  }

  /** How many clients are remembered (both generations): what the memory bound is about. */
  get size(): number {
    return this.#current.size + this.#previous.size;
  }
}
