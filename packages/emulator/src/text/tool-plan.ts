// Multi-step tool use for the emulator's model: when the latest user prompt names tools more than once ("use
// get_weather for Paris, then get_weather for London"), the model calls them one after another, in the order
// named, one call per reply, before it answers. A prompt naming a tool once (or none) keeps the engine's
// behaviour: one call, then the answer once the result is back.
import { generateReply, type EngineReply, type EngineRequest } from './engine.js';
import { SCHEMAS } from 'svc-formats/api-facts';

/** tool_choice's modes; any other string is the name of a forced function */
export const TOOL_CHOICE_MODES: readonly string[] = SCHEMAS.ChatRequest['$.tool_choice'].enum;

function namedInOrder(prompt: string, names: string[]): string[] {
  const hits: { at: number; name: string }[] = [];
  const lower = prompt.toLowerCase();
  for (const name of names) {
    const n = name.toLowerCase();
    for (let i = lower.indexOf(n); i >= 0; i = lower.indexOf(n, i + n.length)) {
      const before = lower[i - 1];
      const after = lower[i + n.length];
      if ((before === undefined || !/[\w-]/.test(before)) && (after === undefined || !/[\w-]/.test(after)))
        hits.push({ at: i, name });
    }
  }
  return hits.sort((a, b) => a.at - b.at).map((h) => h.name);
}

export function generateWithToolPlan(req: EngineRequest): EngineReply {
  const tools = req.tools ?? [];
  let u = req.turns.length - 1;
  while (u >= 0 && (req.turns[u]!.role !== 'user' || req.turns[u]!.toolResult)) u--;
  const forced = req.toolChoice !== undefined && !TOOL_CHOICE_MODES.includes(req.toolChoice);
  if (u < 0 || !tools.length || req.toolChoice === 'none' || forced) return generateReply(req);
  const plan = namedInOrder(
    req.turns[u]!.text,
    tools.map((t) => t.name),
  );
  if (plan.length <= 1) return generateReply(req);
  const done = req.turns.slice(u + 1).filter((t) => t.toolResult).length;
  if (done >= plan.length) return generateReply(req);
  // the next call of the plan: answered as if the prompt had just been asked, with that tool forced
  return generateReply({
    ...req,
    turns: req.turns.slice(0, u + 1),
    toolChoice: plan[done],
    variant: (req.variant ?? 0) * 1000 + done,
  });
}
