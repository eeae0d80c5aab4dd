import { defineCommand } from '../../cmdutil/command.js';
import { ApiError } from '../../core/errors.js';
import { getAgent } from '../../endpoints/agents.js';
import type { PhoneNumber } from '../../endpoints/phone.js';
import { replyOf } from '../../term/reply.js';
import { teamNumbers, v2NumbersOf } from './phones.js';
import { printAgent } from './shared.js';

export default defineCommand({
  description:
    'The agent, then the phone numbers assigned to it, read from the phone numbers API: the v1 numbers whose ' +
    'agent_id is this agent and the v2 numbers routed to it (GET /v2/phone-numbers?agent_id=). With --json the ' +
    'reply as the API sent it ({"agent": …}) with "phone_numbers" added: each number as its list sent it, with ' +
    '"api": "v1" or "v2". When the numbers cannot be read (e.g. a key without access to them) a warning says so ' +
    'and the agent is still shown.',
  args: [{ name: 'id', description: 'agent id', required: true }],
  examples: ['svc agents get agent_123', 'svc agents get agent_123 --json --jq ".phone_numbers[].phone_number"'],
  async run(ctx, [id]) {
    const http = await ctx.http();
    const agent = await getAgent(http, id);
    let numbers: (PhoneNumber & { api: string })[] | undefined;
    try {
      const v1 = (await teamNumbers(http)).filter((n) => n.agent_id === agent.agent_id);
      const v2 = await v2NumbersOf(http, agent.agent_id);
      numbers = [...v1.map((n) => ({ ...n, api: 'v1' })), ...v2.map((n) => ({ ...n, api: 'v2' }))];
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      ctx.out.warn(`the phone numbers of agent ${agent.agent_id} could not be read: ${err.message}`);
    }
    if (ctx.out.json) {
      const reply = replyOf(agent);
      const base = reply && typeof reply === 'object' ? (reply as Record<string, unknown>) : { agent };
      ctx.out.printJson(numbers === undefined ? base : { ...base, phone_numbers: numbers });
      return 0;
    }
    const shown = numbers?.map((n) => `${n.phone_number ?? '?'} (${n.phone_number_id}, ${n.api})`).join(', ');
    printAgent(ctx.out, agent, numbers === undefined ? [] : [['phone_numbers', shown || null]]);
    return 0;
  },
});
