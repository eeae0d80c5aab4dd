import type { OptionSpec, OptionValues } from '../../core/option-spec.js';
import { defineCommand } from '../../cmdutil/command.js';
import { UsageError } from '../../core/errors.js';
import { agentFields, createAgent, type AgentInput } from '../../endpoints/agents.js';
import {
  AGENT_FIELD_OPTIONS,
  checkAgentInput,
  fileNamer,
  flagNamer,
  parseAgentJson,
  printAgent,
  readAgentFile,
  readToolFiles,
  textOrFile,
  type Namer,
} from './shared.js';

type Opts = OptionValues<typeof OPTIONS>;

const OPTIONS = [
  { flags: '-f, --file <path>', description: 'agent JSON (as written by `svc agents pull`; `-` reads stdin)' },
  ...AGENT_FIELD_OPTIONS,
] as const satisfies readonly OptionSpec[];

export default defineCommand({
  description:
    'Flags override the fields of -f FILE. Limits (checked before sending): name 255 characters, ' +
    'instructions 256,000, ' +
    '200 tools, 10 collections, VAD threshold 0-1, VAD silence 0-10,000 ms.',
  options: OPTIONS,
  examples: [
    'svc agents create --name support --voice eve --instructions @prompt.md --tool tools.json',
    'svc agents create -f agent.json --name "support (copy)"',
  ],
  async run(ctx, _args, opts) {
    let input: AgentInput = {};
    let namer: Namer = flagNamer;
    if (opts.file !== undefined) {
      const raw = opts.file === '-' ? parseAgentJson(await ctx.readStdin(), 'stdin') : readAgentFile(opts.file);
      for (const f of agentFields()) if (raw[f] !== undefined) input[f] = raw[f];
      const fromFile = fileNamer(opts.file === '-' ? 'stdin' : opts.file);
      // fields from the file are named by the file, fields from flags by their flag
      namer = (f) => (fieldFromFlag(f, opts) ? flagNamer(f) : fromFile(f));
    }
    if (opts.name !== undefined) input.name = opts.name;
    if (opts.instructions !== undefined) input.instructions = textOrFile('--instructions', opts.instructions);
    if (opts.tool !== undefined) input.tools = readToolFiles(opts.tool);
    if (opts.collection !== undefined) input.collection_ids = opts.collection;
    if (opts.voice !== undefined || opts.vadThreshold !== undefined || opts.vadSilenceMs !== undefined) {
      const base = input.voice && typeof input.voice === 'object' ? (input.voice as Record<string, unknown>) : {};
      input.voice = {
        ...base,
        ...(opts.voice !== undefined ? { voice_id: opts.voice } : {}),
        ...(opts.vadThreshold !== undefined ? { vad_threshold: opts.vadThreshold } : {}),
        ...(opts.vadSilenceMs !== undefined ? { vad_silence_duration_ms: opts.vadSilenceMs } : {}),
      };
    }
    if (input.name === undefined) throw new UsageError('--name is required (or a "name" field in -f FILE)');
    input = checkAgentInput(input, namer);

    const agent = await createAgent(await ctx.http(), input);
    if (ctx.out.json) ctx.out.printJson(agent);
    else printAgent(ctx.out, agent);
    return 0;
  },
});

function fieldFromFlag(f: Parameters<Namer>[0], o: Opts): boolean {
  switch (f) {
    case 'name':
      return o.name !== undefined;
    case 'instructions':
      return o.instructions !== undefined;
    case 'tools':
      return o.tool !== undefined;
    case 'collection_ids':
      return o.collection !== undefined;
    case 'voice':
    case 'voice_id':
      return o.voice !== undefined;
    case 'vad_threshold':
      return o.vadThreshold !== undefined;
    case 'vad_silence_duration_ms':
      return o.vadSilenceMs !== undefined;
  }
}
