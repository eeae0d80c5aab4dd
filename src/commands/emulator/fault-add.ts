import { defineCommand } from '../../cmdutil/command.js';
import { fail, integer, oneOf, regex } from '../../core/validate.js';
import { EmulatorAdmin } from '../../endpoints/emulator.js';
import { FAULT_GRAMMAR as GRAMMAR, FaultList, type Fault } from 'svc-emulator/faults';

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'WS'] as const;

export default defineCommand({
  description:
    `The fault grammar: ${GRAMMAR}. A status fault answers that status (with Retry-After when given) instead ` +
    `of the request; drop cuts a stream after N events (0: the connection at once); slow delays the first ` +
    `byte. A WebSocket upgrade is a request of method WS: a status refuses it, drop:after=N cuts the session ` +
    `after N server events. Each applies to the next matching request (times=N: the next N). --path, --method ` +
    `and --times override the same fields of the spec.`,
  args: [{ name: 'spec', description: `the fault: ${GRAMMAR}`, required: true }],
  options: [
    { flags: '--path <regex>', description: 'only requests whose path matches (e.g. ^/v1/chat)', parse: regex() },
    {
      flags: '--method <method>',
      description: 'only this HTTP method, or WS for WebSocket upgrades',
      parse: oneOf(METHODS, { caseInsensitive: true }),
      choices: METHODS,
    },
    {
      flags: '--times <n>',
      description: 'how many requests it applies to (default 1)',
      parse: integer({ min: 1, max: 1_000_000 }),
    },
  ],
  examples: [
    'svc emulator fault add 429:retry-after=1:times=2 --path ^/v1/chat',
    'svc emulator fault add 503 --method GET --times 3',
    'svc emulator fault add drop:after=5 --path /v1/responses',
    'svc emulator fault add 503 --method WS --path ^/v1/stt',
  ],
  async run(ctx, [spec], opts) {
    let fault: Fault;
    try {
      fault = FaultList.parse(spec as string);
    } catch (err) {
      return fail('spec', spec, `${(err as Error).message} (${GRAMMAR})`);
    }
    if (opts.path !== undefined) fault.path = opts.path;
    if (opts.method !== undefined) fault.method = opts.method.toUpperCase();
    if (opts.times !== undefined) fault.times = opts.times;
    const admin = new EmulatorAdmin(
      await ctx.http({ requireKey: false }),
      ctx.env.SVC_EMULATOR_ADMIN_TOKEN,
      ctx.signal,
    );
    const r = await admin.addFaults([fault]);
    if (ctx.out.json) for (const f of r.faults) ctx.out.printJsonLine(f);
    else ctx.out.info(`fault added: ${spec}${fault.path ? ` on ${fault.path}` : ''}; ${r.faults.length} armed`);
    return 0;
  },
});
