// Which call starts when: at most -P at once, and under --budget only a call whose worst case fits in what is left
// (the budget less what finished calls cost and what the calls in flight may still cost: reserved before a call
// starts, released when its cost is known). A call that does not fit waits while calls in flight may free room, and
// stops the run (never started) when none is in flight. Ctrl-C starts nothing more; records come out in plan order.
// A call that throws stops the run too: nothing more starts, and the error is handed back with the records.

export interface ScheduleHooks<P, R> {
  parallel: number;
  /** the run's dollar cap (--budget), undefined: none */
  budget?: number;
  /** the most a call may cost (USD) */
  worstUsd: (plan: P) => number;
  costOf: (record: R) => number;
  run: (plan: P) => Promise<R>;
  /** each record as soon as those before it in the plan are done too */
  onRecord: (record: R, index: number) => void | Promise<void>;
  signal: AbortSignal;
}

export interface ScheduleResult<R> {
  /** the records of the finished calls, in plan order (a gap where a call did not finish) */
  records: (R | undefined)[];
  stopped?: 'budget' | 'interrupted';
  /** the call the budget stopped at: what it may cost and what was left */
  budgetNote?: string;
  spent: number;
  /** what stopped the run from a call (budget.daily refused a request): thrown by the caller after its reports */
  failure?: unknown;
}

export async function schedule<P, R>(plans: P[], h: ScheduleHooks<P, R>): Promise<ScheduleResult<R>> {
  const records: (R | undefined)[] = new Array(plans.length);
  const running = new Set<Promise<void>>();
  const out: ScheduleResult<R> = { records, spent: 0 };
  let reserved = 0;
  let printed = 0;
  let failure: unknown;
  const flush = async () => {
    while (printed < plans.length && records[printed] !== undefined) await h.onRecord(records[printed]!, printed++);
  };
  for (let i = 0; i < plans.length; i++) {
    while (running.size >= h.parallel && !h.signal.aborted) await Promise.race(running);
    if (h.signal.aborted || failure) break;
    const worst = h.budget === undefined ? 0 : h.worstUsd(plans[i]!);
    while (h.budget !== undefined && out.spent + reserved + worst > h.budget && running.size && !h.signal.aborted)
      await Promise.race(running);
    if (h.signal.aborted || failure) break;
    if (h.budget !== undefined && out.spent + reserved + worst > h.budget) {
      const left = Math.max(0, h.budget - out.spent);
      out.stopped = 'budget';
      out.budgetNote =
        `call ${i + 1} of ${plans.length} may cost up to $${worst.toFixed(6)}, and $${left.toFixed(6)} is left ` +
        `of --budget $${h.budget}`;
      break;
    }
    reserved += worst;
    const task = h
      .run(plans[i]!)
      .then(
        async (r) => {
          records[i] = r;
          out.spent += h.costOf(r);
          await flush();
        },
        (err) => {
          if (!h.signal.aborted) failure ??= err;
        },
      )
      .finally(() => {
        reserved -= worst;
        running.delete(task);
      });
    running.add(task);
  }
  await Promise.all(running);
  if (failure) out.failure = failure;
  else if (h.signal.aborted) out.stopped = 'interrupted';
  return out;
}
