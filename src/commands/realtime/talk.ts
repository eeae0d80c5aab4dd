import { defineCommand } from '../../cmdutil/command.js';
import { SESSION_OPTIONS, TALK_OPTIONS, checkVoiceFlags, runVoiceSession } from '../../realtime/run.js';

export default defineCommand({
  description:
    'Streams the microphone (or --input) to a realtime voice session and plays the answers (or writes them ' +
    'to --output). ' +
    'The transcript of both sides is printed on stdout, or on stderr when stdout carries the audio (--output ' +
    '-); with --json every ' +
    'server event (audio as its byte count) is one JSON line there instead. Half-duplex by default: no ' +
    'microphone audio is sent while the ' +
    'assistant speaks. With a file or stdin as input the session ends once the input is exhausted and the ' +
    'last answer is done. ' +
    'Tools run as local commands (--tool-cmd NAME=COMMAND) or through MCP servers (--mcp); --approve asks on ' +
    'the terminal before each call. ' +
    "On a terminal a status line on stderr shows the input level, who is speaking and the last turn's latencies; " +
    "with --json each turn's latencies are a svc.turn.latency event (docs/realtime.md names the moments measured).",
  options: [...TALK_OPTIONS, ...SESSION_OPTIONS],
  examples: [
    'svc realtime talk --voice ara',
    'svc realtime talk --agent agent_123 --duplex',
    'svc realtime talk --input question.wav --output answer.wav',
    'svc realtime talk --record conversation.wav --latency-log turns.jsonl',
    'svc realtime talk --tool weather.json --tool-cmd get_weather=./weather.sh',
    'arecord -q -f S16_LE -r 24000 -c 1 -t raw | svc realtime talk --input - --output - | aplay -q',
  ],
  async run(ctx, _args, opts) {
    const flags = { ...opts, input: opts.input ?? 'mic', output: opts.output ?? 'speaker' };
    checkVoiceFlags(ctx, flags);
    return runVoiceSession(ctx, flags, { labels: { user: 'you', assistant: 'assistant' } });
  },
});
