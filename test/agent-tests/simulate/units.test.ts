// The parts of src/agent-tests/simulate on their own: the scheduler's -P and --budget reservations (a call that
// does not fit waits for calls in flight, and stops the run when none is), percentiles and latency budgets.
import { describe, expect, it } from 'vitest';
import { schedule } from '../../../src/agent-tests/simulate/schedule.js';
import { latencyFailures, percentile } from '../../../src/agent-tests/simulate/call.js';

interface Plan {
  id: number;
  worst: number;
  cost: number;
}

/** Runs `plans` through the scheduler; each call ends when the test says, and what was running at each start. */
function harness(plans: Plan[], o: { parallel: number; budget?: number; signal?: AbortSignal }) {
  const ends = new Map<number, () => void>();
  const started: number[] = [];
  const inFlightAtStart: number[] = [];
  const printed: number[] = [];
  const done = schedule<Plan, Plan>(plans, {
    parallel: o.parallel,
    budget: o.budget,
    worstUsd: (p) => p.worst,
    costOf: (p) => p.cost,
    signal: o.signal ?? new AbortController().signal,
    run: (p) =>
      new Promise<Plan>((resolve) => {
        inFlightAtStart.push(ends.size);
        started.push(p.id);
        ends.set(p.id, () => {
          ends.delete(p.id);
          resolve(p);
        });
      }),
    onRecord: (p) => {
      printed.push(p.id);
    },
  });
  const tick = () => new Promise((r) => setTimeout(r, 5));
  return { done, started, printed, inFlightAtStart, end: (id: number) => ends.get(id)!(), tick };
}

describe('schedule', () => {
  it('-P: at most that many calls at once; records in plan order whatever order calls end in', async () => {
    const plans = [1, 2, 3, 4].map((id) => ({ id, worst: 0, cost: 0 }));
    const h = harness(plans, { parallel: 2 });
    await h.tick();
    expect(h.started).toEqual([1, 2]);
    h.end(2);
    await h.tick();
    expect(h.started).toEqual([1, 2, 3]);
    expect(h.printed).toEqual([]); // call 1 is still running
    h.end(1);
    await h.tick();
    expect(h.printed).toEqual([1, 2]);
    h.end(3);
    await h.tick();
    h.end(4);
    const r = await h.done;
    expect(h.printed).toEqual([1, 2, 3, 4]);
    expect(r.stopped).toBeUndefined();
    expect(Math.max(...h.inFlightAtStart)).toBeLessThanOrEqual(1);
  });

  it('--budget: a call that does not fit waits for one in flight, then starts on what it left', async () => {
    // $2.5: two worst cases of $1 fit at once; the third waits until the first ends having cost $0.1
    const plans = [1, 2, 3].map((id) => ({ id, worst: 1, cost: 0.1 }));
    const h = harness(plans, { parallel: 3, budget: 2.5 });
    await h.tick();
    expect(h.started).toEqual([1, 2]);
    h.end(1);
    await h.tick();
    expect(h.started).toEqual([1, 2, 3]);
    h.end(2);
    h.end(3);
    const r = await h.done;
    expect(r.stopped).toBeUndefined();
    expect(r.spent).toBeCloseTo(0.3);
  });

  it('--budget: with nothing in flight a call that cannot fit is never started, and the run says why', async () => {
    const plans = [
      { id: 1, worst: 1, cost: 0.9 },
      { id: 2, worst: 1, cost: 0.9 },
    ];
    const h = harness(plans, { parallel: 1, budget: 1.5 });
    await h.tick();
    h.end(1);
    const r = await h.done;
    expect(h.started).toEqual([1]);
    expect(r.stopped).toBe('budget');
    expect(r.budgetNote).toBe('call 2 of 2 may cost up to $1.000000, and $0.600000 is left of --budget $1.5');
    expect(r.records.filter(Boolean)).toHaveLength(1);
  });

  it('Ctrl-C: nothing more starts; the calls that finished are kept', async () => {
    const abort = new AbortController();
    const plans = [1, 2, 3].map((id) => ({ id, worst: 0, cost: 0 }));
    const h = harness(plans, { parallel: 1, signal: abort.signal });
    await h.tick();
    h.end(1);
    await h.tick();
    abort.abort();
    h.end(2);
    const r = await h.done;
    expect(h.started).toEqual([1, 2]);
    expect(r.stopped).toBe('interrupted');
    expect(h.printed).toEqual([1, 2]);
  });
});

describe('latency', () => {
  it('percentiles by nearest rank; a budget over them is named with the figure', () => {
    const figures = [100, 200, 300, 400, 1000];
    expect(percentile(figures, 50)).toBe(300);
    expect(percentile(figures, 95)).toBe(1000);
    expect(percentile([], 50)).toBeUndefined();
    expect(latencyFailures(figures, { p50_ms: 300, p95_ms: 900 })).toEqual([
      "latency budget p95_ms 900 ms: the agent's first audio came after 1000 ms (p95)",
    ]);
    expect(latencyFailures(figures, {})).toEqual([]);
  });
});
